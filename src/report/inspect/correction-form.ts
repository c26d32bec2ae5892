/**
 * The correction box of `hexa inspect --serve` on a p2p search (docs/guides/reward-search.md, "Corrections"): a
 * plain form that POSTs to /correct with the server's token, one per p2p search served. Only the live page has it;
 * a written report never carries a token.
 */
import { escapeHtml } from "../escape-html.ts";

/** The form for the p2p searches `dirs` (paths relative to the served directory, "." for itself). */
export const correctionForm = (token: string, dirs: readonly string[], maxChars: number): string => {
  if (dirs.length === 0) return "";
  const options = dirs.map((d) => `<option value="${escapeHtml(d)}">${escapeHtml(d === "." ? "this search" : d)}</option>`).join("");
  return `<section class="correction" id="correction">
<h2>Correct the search</h2>
<p>A correction in words (e.g. “land softer”): the reviser of the next iteration must address it, and the judges weigh it. A stopped or finished search goes on with <code>hexa search --resume DIR</code>.</p>
<form method="post" action="/correct">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<label>Search <select name="dir">${options}</select></label>
<label>Correction <textarea name="text" required maxlength="${maxChars}" rows="2" cols="60"></textarea></label>
<button type="submit">Add the correction</button>
</form>
</section>`;
};
