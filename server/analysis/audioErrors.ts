// The two ways audio can fail to decode, told apart for users: bytes that are
// no audio the server can analyse (a message for them), and stored bytes that
// could not be read (the server's trouble).

export class UnsupportedAudioError extends Error {}

/** The stored bytes could not be read (as opposed to bytes that are no audio the server can analyse). */
export class StoredFileError extends Error {}
