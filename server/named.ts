// How a message names a record people know by a name (docs/decisions.md §10, names in messages): its kind, its
// id, and the name they gave it in parentheses — `media file 12 (siteA/0500.wav)`, `tag set 3 (expert labels)`;
// the id alone where the record has no name. The server's messages, job results and the command line's share it.

export function named(kind: string, id: number, name: string | null | undefined): string {
  return `${kind} ${id}${name ? ` (${name})` : ''}`
}

/** A media file by its alias (the path below the import's root that people gave it). */
export const mediaFileNamed = (m: { id: number; alias?: string | null }): string => named('media file', m.id, m.alias)

/** A tag set by its name. */
export const tagSetNamed = (s: { id: number; name?: string | null }): string => named('tag set', s.id, s.name)
