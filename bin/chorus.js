#!/usr/bin/env node
// The installed command: runs the compiled command line (build it with `npm run build`).
await import('../dist/main.js');
