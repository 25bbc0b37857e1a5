// A request body read with a bound: the REST write and the MCP endpoint never buffer more than this.
/** One record is at most ~600 KB of JSON (W7); a REST body is never buffered beyond this. */
export const MAX_REST_BODY_BYTES = 2 * 1024 * 1024;

export class BodyTooLarge extends Error {}

/** Reads the body as text, stopping as soon as it passes `max` bytes (chunked bodies included). */
export async function readCapped(request: Request, max: number): Promise<string> {
  if (Number(request.headers.get('content-length') ?? 0) > max) throw new BodyTooLarge();
  if (!request.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      size += read.value.byteLength;
      if (size > max) throw new BodyTooLarge();
      chunks.push(read.value);
    }
  } finally {
    // Stops the upload of a body refused half-way (as leaving a for-await loop did).
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).toString('utf8');
}
