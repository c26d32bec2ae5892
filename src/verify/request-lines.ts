/** A model request as numbered lines, for naming the first line where two requests differ. */
export const requestLines = (messages: readonly unknown[], tools: readonly string[], outputSchema?: string): string[] => {
  const lines = messages.flatMap((m, i) => {
    const msg = (m ?? {}) as { role?: unknown; content?: unknown; toolCalls?: unknown };
    const content = typeof msg.content === "string" ? msg.content : JSON.stringify(msg.content ?? null);
    const head = `message ${i + 1} (${String(msg.role)})`;
    const calls = Array.isArray(msg.toolCalls) && msg.toolCalls.length ? [`${head} tool calls: ${JSON.stringify(msg.toolCalls)}`] : [];
    return [...content.split("\n").map((line, j) => `${head} line ${j + 1}: ${line}`), ...calls];
  });
  return [...lines, `tools: ${tools.join(", ") || "(none)"}`, ...(outputSchema ? [`answer schema: ${outputSchema}`] : [])];
};

/** How many leading lines two requests share. */
export const sharedLines = (a: readonly string[], b: readonly string[]): number => {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
};

/** How many leading characters two lines share. */
export const sharedChars = (a: string, b: string): number => {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
};

/** The first line at which two requests differ, each side's ("(no such line)" where one ends first). */
export const firstDifferingLine = (recorded: readonly string[], replayed: readonly string[]): { recorded: string; replayed: string } | undefined => {
  const n = sharedLines(recorded, replayed);
  if (n === recorded.length && n === replayed.length) return undefined;
  return { recorded: recorded[n] ?? "(no such line: the request ends here)", replayed: replayed[n] ?? "(no such line: the request ends here)" };
};
