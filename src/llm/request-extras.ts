import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Fields added to the JSON body of the requests made inside `withRequestExtras`, below langchain: its
 * ChatOpenAI sends a `json_schema` response_format through the SDK's `parse`, which throws on an answer that is
 * not bare JSON (a fenced block, prose around it) or that hit the token cap, where hexa wants the text, to
 * validate it with zod and retry once (method.md §1).
 */
const current = new AsyncLocalStorage<Record<string, unknown>>();

export const withRequestExtras = <T>(fields: Record<string, unknown>, fn: () => Promise<T>): Promise<T> => current.run(fields, fn);

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** `inner`, with the current extras merged into a JSON request body; other requests pass unchanged. */
export const extrasFetch =
  (inner: Fetch): Fetch =>
  (input, init) => {
    const fields = current.getStore();
    if (!fields || Object.keys(fields).length === 0 || typeof init?.body !== "string") return inner(input, init);
    return inner(input, { ...init, body: JSON.stringify({ ...(JSON.parse(init.body) as Record<string, unknown>), ...fields }) });
  };
