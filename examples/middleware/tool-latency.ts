import { createMiddleware } from "langchain";

/**
 * Logs each tool call the actor runs, with how long the tool took, to stderr:
 * `tool-latency: probe 0.4 ms` (or `… failed after 0.4 ms: <message>`).
 * Add it to a run with HEXA_MIDDLEWARE=examples/middleware/tool-latency.ts (README.md).
 */
export default createMiddleware({
  name: "ToolLatency",
  wrapToolCall: async (request, handler) => {
    const started = performance.now();
    const took = () => `${(performance.now() - started).toFixed(1)} ms`;
    try {
      const result = await handler(request);
      process.stderr.write(`tool-latency: ${request.toolCall.name} ${took()}\n`);
      return result;
    } catch (e) {
      process.stderr.write(`tool-latency: ${request.toolCall.name} failed after ${took()}: ${(e as Error).message}\n`);
      throw e;
    }
  },
});
