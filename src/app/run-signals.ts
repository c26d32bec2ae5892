import type { ProgressView } from "./progress.ts";

/** How a run answers SIGINT / SIGTERM while it plays. */
export interface RunInterrupt {
  /** Aborted by the first signal: the loop stops at the next episode boundary. */
  signal: AbortSignal;
  /** Whether an error is the stop the first signal asked for (and remembers that it was). */
  caused(e: unknown): boolean;
  /** Whether the run ended because of a signal. */
  interrupted(): boolean;
  uninstall(): void;
}

/**
 * The first Ctrl-C stops at the next episode boundary (episodes in flight finish and are kept); a second stops
 * at once: the lock is released, Chroma stopped, and the process exits 130 with how to resume.
 */
export const onInterrupt = (s: {
  view: ProgressView;
  release: () => void;
  services: { index?: { stop(): Promise<void> } };
  resumeHint: string;
}): RunInterrupt => {
  const controller = new AbortController();
  const reason = new Error("interrupted");
  let stopped = false;
  const onSignal = () => {
    if (!controller.signal.aborted) {
      controller.abort(reason);
      s.view.line("interrupt: stopping after the episodes in flight (Ctrl-C again to stop at once; those are then replayed on resume)");
      return;
    }
    s.view.stop();
    s.release();
    process.stderr.write(`\ninterrupted; nothing finished is lost. ${s.resumeHint}\n`);
    const index = s.services.index;
    if (!index) process.exit(130);
    else void index.stop().finally(() => process.exit(130));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    caused: (e) => (stopped = controller.signal.aborted && e === reason),
    interrupted: () => stopped,
    uninstall: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
};
