/**
 * The entry point of `partnership-sandbox mcp` (src/mcp/): bundled on its own as dist/mcp.js
 * (scripts/build.mjs), which main.ts loads only for that subcommand.
 */
export { runMcp } from './mcp/mcp-cli.js';
