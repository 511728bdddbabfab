// A response body already serialized as JSON text (records rendered straight from database rows),
// sent as it is instead of through JSON.stringify.

export class JsonText {
  constructor(readonly text: string) {}
}

/** A JSON array of already serialized values. */
export const jsonArray = (items: string[]) => new JsonText(`[${items.join(',')}]`)
