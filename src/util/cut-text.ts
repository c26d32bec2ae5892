/** Head + tail of a long text, with how much was cut. */
export const cutMiddle = (text: string, head: number, tail: number): string => {
  if (text.length <= head + tail + 40) return text;
  return `${text.slice(0, head)} … [${text.length - head - tail} characters cut] … ${text.slice(text.length - tail)}`;
};

/**
 * The most of one model text (a content, a thought, a call's arguments) a file keeps: a model's answer is
 * bounded only by the server, and a run's records must stay readable (a 10 MB answer is kept as 32 KB).
 */
export const STORED_TEXT_CHARS = 32 * 1024;
const STORED_TAIL_CHARS = 4 * 1024;

/** The text as stored: whole up to STORED_TEXT_CHARS, else its head and tail with how much was cut between. */
export const storedText = (text: string): string => cutMiddle(text, STORED_TEXT_CHARS - STORED_TAIL_CHARS - 80, STORED_TAIL_CHARS);
