/** How far a cause chain is followed: a cycle (an error that causes itself) ends here too. */
const MAX_DEPTH = 8;

/** The error and the errors that caused it, outermost first (`Error.cause`), at most MAX_DEPTH of them. */
export const causesOf = (e: unknown): Error[] => {
  const causes: Error[] = [];
  for (let c: unknown = e; c instanceof Error && causes.length < MAX_DEPTH; c = c.cause) causes.push(c);
  return causes;
};

/** The error's message with its causes, the first line of each ("Connection error. ← fetch failed ← connect ECONNREFUSED"). */
export const causeChain = (e: unknown): string => {
  const parts: string[] = [];
  for (let c: unknown = e; c !== undefined && c !== null && parts.length < 4; ) {
    if (c instanceof Error) {
      parts.push(c.message.split("\n")[0] ?? "");
      c = c.cause;
    } else {
      parts.push(String(c));
      break;
    }
  }
  return parts.join(" ← ");
};
