// Validates and lints one API document already fetched (document_checks.mjs:
// swagger-parser, Redocly, Spectral), for suites that fetch a document of
// their own: e2e.custom_fields checks a company's document this way.
//   node validate_document.mjs DOCUMENT.json WORKDIR
// Prints each check and "N passed, N failed"; exits 1 when something failed.
import { mkdirSync, readFileSync } from "node:fs";
import { checkDocument } from "./document_checks.mjs";

const [documentFile, workDir] = process.argv.slice(2);
let passed = 0;
let failed = 0;
function check(name, ok, detail = "") {
  if (ok) {
    passed++;
    console.log(`ok   ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name}${detail ? `: ${detail}` : ""}`);
  }
}

mkdirSync(workDir, { recursive: true });
await checkDocument(JSON.parse(readFileSync(documentFile, "utf-8")), workDir, check);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
