// Validates and lints one API document already fetched (document_checks.mjs:
// swagger-parser, Redocly, Spectral), for suites that fetch a document of
// their own: e2e.custom_fields checks a company's document this way.
//   node validate_document.mjs DOCUMENT.json WORKDIR
// Prints each check and "N passed, N failed"; exits 1 when something failed.
import { mkdirSync, readFileSync } from "node:fs";
import { checkDocument, checks } from "./document_checks.mjs";

const [documentFile, workDir] = process.argv.slice(2);
const { check, finish } = checks();

mkdirSync(workDir, { recursive: true });
await checkDocument(JSON.parse(readFileSync(documentFile, "utf-8")), workDir, check);
finish();
