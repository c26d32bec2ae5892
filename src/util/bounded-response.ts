/**
 * The response with its body cut off past `maxBytes` (as read, after any decompression): reading further fails
 * with `refuse(bytes)` and cancels the connection, so whoever parses the body never holds more than `maxBytes`.
 */
export const boundedResponse = (response: Response, maxBytes: number, refuse: (bytes: number) => Error): Response => {
  if (!response.body) return response;
  let bytes = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, out) {
      bytes += chunk.byteLength;
      if (bytes > maxBytes) throw refuse(bytes);
      out.enqueue(chunk);
    },
  });
  const { status, statusText, headers } = response;
  return new Response(response.body.pipeThrough(counter), { status, statusText, headers });
};
