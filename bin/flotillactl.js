#!/usr/bin/env node
// `flotillactl` as an npm bin (npx flotillactl): bin/flotillactl.ts on the pinned Node.js.
import { runTs } from "./run-ts.js";

runTs("flotillactl.ts");
