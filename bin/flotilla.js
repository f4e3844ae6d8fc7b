#!/usr/bin/env node
// `flotilla` as an npm bin: bin/flotilla.ts on the pinned Node.js.
import { runTs } from "./run-ts.js";

runTs("flotilla.ts");
