import { MiddlewareError } from "langchain";

/** The error a middleware chain wraps (once per layer, as MiddlewareError) back as it was thrown. */
export const rootCause = (e: unknown): unknown => {
  let error = e;
  while (MiddlewareError.isInstance(error) && error.cause !== undefined) error = error.cause;
  return error;
};
