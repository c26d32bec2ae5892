import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError } from "../errors.ts";

/** One module a plugin variable named: the path as written, the file it resolved to, and its exports. */
export interface PluginModule {
  path: string;
  file: string;
  exports: Record<string, unknown>;
}

/**
 * The modules a plugin variable (HEXA_FAMILIES, HEXA_MIDDLEWARE) names: paths separated by ':', relative ones from
 * the working folder. Code comes only from the user's environment (docs/security.md); a module that does not load
 * is refused by name, saying what it should export.
 */
export const importPluginModules = async (env: NodeJS.ProcessEnv, variable: string, shouldExport: string): Promise<PluginModule[]> => {
  const modules: PluginModule[] = [];
  for (const path of (env[variable] ?? "").split(":").filter(Boolean)) {
    const file = isAbsolute(path) ? path : resolve(path);
    try {
      modules.push({ path, file, exports: (await import(pathToFileURL(file).href)) as Record<string, unknown> });
    } catch (e) {
      throw new ConfigError(
        `${variable}: cannot load ${JSON.stringify(path)} (${(e as Error).message.split("\n")[0]}); name a module that exports ${shouldExport}`,
      );
    }
  }
  return modules;
};
