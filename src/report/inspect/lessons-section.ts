import type { LessonView } from "./bank-view.ts";
import type { Report } from "./model.ts";
import { escapeText } from "../escape-html.ts";

export const lessonRow = (l: LessonView): string =>
  `<tr><td>${escapeText(l.level)}</td><td>${escapeText(l.id)}</td><td><b>${l.tier}</b></td><td>${escapeText(l.text)}${
    l.retiredReason ? `<br><span class="muted">retired because: ${escapeText(l.retiredReason)}</span>` : ""
  }${l.parents.length ? `<br><span class="muted">merged from ${escapeText(l.parents.join(", "))}</span>` : ""}</td><td>${l.history
    .map((h) => escapeText(`round ${h.round}: ${h.from} → ${h.to} by ${h.by} — ${h.reason}`))
    .join("<br>")}</td></tr>`;

/** Each run's lessons with their tiers, history and, for a retired one, why (docs/spec/method.md §3.1); only where a run has lessons. */
export const lessonsSection = (report: Report): string => {
  const runs = report.cells.flatMap((c) => c.runs).filter((r) => r.bank.lessons?.length);
  return runs.length
    ? `<section id="lessons"><h2>Lessons</h2><p class="muted">HARD: never violated; STRONG: followed unless evidence says otherwise; SOFT: challengeable; RETIRED: inactive, shown with the reason.</p>${runs
        .map(
          (r) =>
            `<h3>${escapeText(r.id)}</h3><table><thead><tr><th>level</th><th>id</th><th>tier</th><th>lesson</th><th>tier changes</th></tr></thead><tbody>${r.bank.lessons!.map(lessonRow).join("")}</tbody></table>`,
        )
        .join("")}</section>`
    : "";
};
