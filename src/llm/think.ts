/**
 * A reasoning model served without a reasoning parser (vLLM without --reasoning-parser, llama.cpp without
 * --reasoning-format) writes its reasoning into the content as `<think>…</think>`. Some chat templates open the
 * block in the prompt, so the answer holds only the closing tag; an answer cut at the output cap holds only the
 * opening one.
 */
export interface Split {
  /** The content without the reasoning. */
  text: string;
  /** The reasoning, "" when there was none. */
  think: string;
}

const OPEN = /<think>/i;
const CLOSE = /<\/think>/i;

/** Splits `<think>` blocks (closed, opened by the template, or cut) from the content. */
export const splitThink = (content: string): Split => {
  if (!OPEN.test(content) && !CLOSE.test(content)) return { text: content, think: "" };
  const thinks: string[] = [];
  let rest = content;
  // Only the closing tag: everything before it is reasoning whose opening tag was in the prompt.
  const close = CLOSE.exec(rest);
  const open = OPEN.exec(rest);
  if (close && (!open || close.index < open.index)) {
    thinks.push(rest.slice(0, close.index));
    rest = rest.slice(close.index + close[0].length);
  }
  for (;;) {
    const o = OPEN.exec(rest);
    if (!o) break;
    const after = rest.slice(o.index + o[0].length);
    const c = CLOSE.exec(after);
    if (!c) {
      // Cut before its end: the rest is reasoning.
      thinks.push(after);
      rest = rest.slice(0, o.index);
      break;
    }
    thinks.push(after.slice(0, c.index));
    rest = rest.slice(0, o.index) + after.slice(c.index + c[0].length);
  }
  return {
    text: rest.trim(),
    think: thinks
      .map((t) => t.trim())
      .filter(Boolean)
      .join("\n\n"),
  };
};
