/** The query parameters of an API request, as the client sends them (undefined ones left out). */
export type Query = Record<string, string | number | boolean | undefined>
