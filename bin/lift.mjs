#!/usr/bin/env node
// The `lift` command (package.json "bin"): the app is TypeScript run through tsx, so this registers
// tsx's loader in-process (no child process to forward signals to) and runs src/cli.ts.
import { register } from "tsx/esm/api";

register();
await import("../src/cli.ts");
