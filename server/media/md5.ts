// md5 checksums as clients send them (import, the pre-check and the `?md5=`
// filter of media file lists), used to skip files a library already holds
// before uploading them.

export const MD5_MESSAGE = 'Enter a valid md5 checksum: 32 hexadecimal digits.'

/** A checksum in its stored form (lower-case hex), or null when `v` is not one. */
export function parseMd5(v: unknown): string | null {
  return typeof v === 'string' && /^\s*[0-9a-fA-F]{32}\s*$/.test(v) ? v.trim().toLowerCase() : null
}
