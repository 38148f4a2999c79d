/**
 * An operation that cannot become an action (a required cookie parameter, a multipart body): it
 * is listed in `skipped` with this message and the other operations go on.
 */
export class UnsupportedOperation extends Error {}
