#!/usr/bin/env node
// The built-in trainer process (docs/trainer-protocol.md). Its stdout carries protocol lines only, so every
// console method writes to stderr.
import { launch } from "./launch.js";

for (const m of ["log", "info", "debug", "warn"]) console[m] = console.error;
const { main } = await launch("levels/reward-search/trainer/main.ts");
await main();
