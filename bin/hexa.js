#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx's loader: no build step between an edit and a run.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
