import { basename } from "node:path";
import { middlewareOf, type UserMiddleware } from "../../agents/user-middleware.ts";
import { ConfigError } from "../errors.ts";
import { importPluginModules } from "./plugin-modules.ts";

const ENV = "HEXA_MIDDLEWARE";

/** The user's actor middleware of a process and where it came from (docs/security.md: only from the user's environment). */
export interface ActorMiddleware {
  /** Run after hexa's own in every episode a model plays here (agents/actor-agent.ts). */
  list: UserMiddleware;
  /** Each one's name and its module's file name, as a run records them (writers.jsonl): no directory, which may name a home. */
  names: string[];
}

export const NO_MIDDLEWARE: ActorMiddleware = { list: [], names: [] };

/**
 * The middleware HEXA_MIDDLEWARE names: module paths separated by ':' (as HEXA_FAMILIES), each exporting a langchain
 * `AgentMiddleware` (made with `createMiddleware`) or an array of them, as default or `middleware`. Never read from
 * a run config, a run directory or a bundle: it is code, and only the user's own environment may choose code.
 */
export const loadActorMiddleware = async (env: NodeJS.ProcessEnv): Promise<ActorMiddleware> => {
  const list: UserMiddleware[number][] = [];
  const names: string[] = [];
  for (const { path, file, exports } of await importPluginModules(env, ENV, "langchain middleware")) {
    const got = middlewareOf(exports);
    if ("found" in got)
      throw new ConfigError(
        `${ENV}: ${JSON.stringify(path)} exports no langchain middleware (got ${got.found}); export an AgentMiddleware made with createMiddleware, or an array of them, as default or \`middleware\``,
      );
    list.push(...got.middleware);
    names.push(...got.middleware.map((m) => `${m.name} (${basename(file)})`));
  }
  return { list, names };
};
