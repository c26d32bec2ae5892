import cliProgress from "cli-progress";
import type { Progress } from "../loop/run-loop.ts";
import { counted } from "../util/counted.ts";

export interface ProgressView {
  update(p: Progress): void;
  /** A line printed above the bar (or plainly without a TTY). */
  line(text: string): void;
  stop(): void;
}

const fmtElapsed = (ms: number) => {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
};

const fields = (p: Progress, startedMs: number, now: number) => ({
  phase: `${p.level ? `${p.level} ` : ""}${p.phase === "offline" ? "offline" : `round ${p.round}`}`,
  successes: counted(p.successes, "success", "successes"),
  tokens: p.tokens,
  cost: p.costUsd.toFixed(4),
  elapsed: fmtElapsed(now - startedMs),
});

/** A bar on a TTY (episodes done / total, successes, tokens, cost, elapsed); plain lines otherwise. */
export const progressView = (stream: NodeJS.WriteStream, now: () => number): ProgressView => {
  const started = now();
  if (!stream.isTTY) {
    return {
      update: (p) => {
        if (p.done === 0) return;
        const f = fields(p, started, now());
        stream.write(`[${p.done}/${p.total}] ${f.phase}: ${f.successes}, ${f.tokens} tokens, $${f.cost}, ${f.elapsed}\n`);
      },
      line: (t) => void stream.write(`${t}\n`),
      stop: () => {},
    };
  }
  const multi = new cliProgress.MultiBar(
    {
      stream,
      format: "{bar} {value}/{total} episodes | {phase} | {successes} | {tokens} tokens | ${cost} | {elapsed}",
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  let bar: cliProgress.SingleBar | undefined;
  return {
    update: (p) => {
      const f = fields(p, started, now());
      if (!bar) bar = multi.create(p.total, p.done, f);
      else bar.update(p.done, f);
      // Redraw now: cli-progress redraws on a timer, which a heuristic episode (synchronous physics) would starve.
      multi.update();
    },
    line: (t) => {
      if (!bar) return void stream.write(`${t}\n`);
      multi.log(`${t}\n`);
      multi.update();
    },
    stop: () => void (bar && multi.stop()),
  };
};
