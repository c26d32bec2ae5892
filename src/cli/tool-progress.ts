import cliProgress from "cli-progress";
import type { ToolProgress } from "../family/task-env.ts";

/**
 * Progress of long tool calls (a training): a bar per call on a TTY; without one, a line at each quarter.
 * A call is new when the tool changes or its count goes back.
 */
export const toolProgressView = (stream: NodeJS.WriteStream): { update(p: ToolProgress): void; stop(): void } => {
  let last: ToolProgress | undefined;
  let bar: cliProgress.SingleBar | undefined;
  let quarter = 0;
  const fresh = (p: ToolProgress) => !last || last.tool !== p.tool || p.done < last.done || p.total !== last.total;
  const stop = () => {
    bar?.stop();
    bar = undefined;
  };
  return {
    update: (p) => {
      const note = p.note ?? "";
      if (stream.isTTY) {
        if (fresh(p)) {
          stop();
          bar = new cliProgress.SingleBar(
            { stream, format: `  ${p.tool} {bar} {value}/{total} steps {note}`, hideCursor: true },
            cliProgress.Presets.shades_classic,
          );
          bar.start(p.total, p.done, { note });
        } else bar?.update(p.done, { note });
      } else {
        if (fresh(p)) quarter = 0;
        const q = Math.floor((4 * p.done) / Math.max(1, p.total));
        if (q > quarter || (quarter === 0 && fresh(p))) {
          quarter = Math.max(q, 1);
          stream.write(`  ${p.tool}: ${p.done}/${p.total} steps${note ? `, ${note}` : ""}\n`);
        }
      }
      last = p;
    },
    stop,
  };
};
