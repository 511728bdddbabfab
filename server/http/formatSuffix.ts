// DRF's format suffixes (`format_suffix_patterns`, on by default in the original's router): `tag/5.json`,
// `tag.json` and `.json` after the API root answer as `tag/5/`, `tag/` and the root; `.api` (the original's
// browsable page) answers the same JSON. Only paths of the API are rewritten: a media file may well be
// called `x.json`. `?format=json` and `?format=api` need nothing: unknown query parameters are ignored.

const SUFFIXED = /^(\/api\/v0\/(?:[^?#]*\/)?)([^/?#]*)\.(?:json|api)\/?(?=$|\?)/

/** The URL a request with a format suffix answers as; any other URL as it is. */
export function withoutFormatSuffix(url: string): string {
  const m = SUFFIXED.exec(url)
  if (!m) return url
  const [whole, dir, last] = m
  return `${dir}${last === '' ? '' : `${last}/`}${url.slice(whole.length)}`
}
