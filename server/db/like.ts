// LIKE patterns made from text that is meant literally: `%`, `_` and the escape character `\` (PostgreSQL's
// default) lose their meaning, so a prefix `site_A%` matches only text that starts with exactly that.

/** The LIKE pattern of text that starts with `prefix`, taken literally. */
export const startsWithPattern = (prefix: string): string => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
