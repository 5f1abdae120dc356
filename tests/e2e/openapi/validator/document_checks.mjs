// The checks of an API document as tools read it, shared by e2e.openapi
// (the generic document, openapi_test.mjs) and e2e.custom_fields (a
// company's own document, validate_document.mjs):
// @apidevtools/swagger-parser validates it (OpenAPI 3.1 and its JSON
// Schemas, $refs resolved); Redocly CLI (recommended, redocly.yaml) and
// Spectral (spectral:oas recommended, spectral.yaml) lint it: zero errors
// and zero warnings.
import { execFileSync } from "node:child_process";
import { copyFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import SwaggerParser from "@apidevtools/swagger-parser";

const here = dirname(fileURLToPath(import.meta.url));

// A linter's command line: its output, whatever its exit status (both exit
// non-zero when they find errors; the counts decide).
function lint(tool, args) {
  try {
    return execFileSync(join(here, "node_modules", ".bin", tool), args, {
      cwd: here,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
             NO_UPDATE_NOTIFIER: "1" },
      maxBuffer: 64 * 1024 * 1024,
      stdio: ["ignore", "pipe", "pipe"],
    }).toString();
  } catch (e) {
    if (e.stdout?.length) return e.stdout.toString();
    throw new Error(`${tool} failed: ${e.stderr?.toString() ?? e.message}`);
  }
}

function reportLint(check, name, problems) {
  const shown = problems.slice(0, 40).map((p) => `\n    ${p}`).join("");
  const more = problems.length > 40 ? `\n    ... ${problems.length - 40} more` : "";
  check(name, problems.length === 0, `${problems.length} problem(s):${shown}${more}`);
}

function lintWithRedocly(check, config, file) {
  const name = "Redocly (recommended) finds no error and no warning";
  try {
    const report = JSON.parse(lint("redocly", ["lint", "--config", config, "--format", "json", file]));
    const problems = report.problems
      .filter((p) => p.severity === "error" || p.severity === "warn")
      .map((p) => `${p.severity} ${p.ruleId} ${p.location?.[0]?.pointer ?? ""}: ${p.message}`);
    console.log(`Redocly: ${report.totals.errors} error(s), ${report.totals.warnings} ` +
                `warning(s), ${report.totals.ignored} ignored (.redocly.lint-ignore.yaml)`);
    reportLint(check, name, problems);
  } catch (e) {
    check(name, false, e.message);
  }
}

function lintWithSpectral(check, ruleset, file) {
  const name = "Spectral (spectral:oas recommended) finds no error and no warning";
  const severities = ["error", "warning", "info", "hint"];
  try {
    const results = JSON.parse(lint("spectral", [
      "lint", file, "--ruleset", ruleset, "--format", "json", "--quiet"]));
    const counted = results.filter((r) => r.severity <= 1);
    const count = (severity) => results.filter((r) => r.severity === severity).length;
    console.log(`Spectral: ${count(0)} error(s), ${count(1)} warning(s)`);
    reportLint(check, name, counted.map((r) => `${severities[r.severity]} ${r.code} ` +
                                               `${r.path.join(".")}: ${r.message}`));
  } catch (e) {
    check(name, false, e.message);
  }
}

// Validates and lints `doc`, reporting each result through check(name, ok,
// detail). The document is written as openapi.json in `dir`: the name
// .redocly.lint-ignore.yaml and spectral.yaml's override know. Both tools
// resolve those names from the folder of their rules (Redocly reads its
// ignore file beside its configuration; Spectral matches an override's
// files relative to its ruleset), so a `dir` other than this folder gets
// this folder's redocly.yaml, .redocly.lint-ignore.yaml and spectral.yaml
// copied beside the document: the same rules, not a second set.
// One check's line ("ok   name" or "FAIL name: detail") and the counts the
// scripts end with: `const { check, finish } = checks();` ... `finish();`
// prints "N passed, N failed" and exits 1 when something failed.
export function checks() {
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
  function finish() {
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed === 0 ? 0 : 1);
  }
  return { check, finish };
}

export async function checkDocument(doc, dir, check) {
  try {
    await SwaggerParser.validate(structuredClone(doc));
    check("swagger-parser validates the document (OpenAPI 3.1)", true);
  } catch (e) {
    check("swagger-parser validates the document (OpenAPI 3.1)", false, e.message);
  }
  const file = join(dir, "openapi.json");
  writeFileSync(file, JSON.stringify(doc, null, 2));
  if (resolve(dir) !== resolve(here)) {
    for (const name of ["redocly.yaml", ".redocly.lint-ignore.yaml", "spectral.yaml"]) {
      copyFileSync(join(here, name), join(dir, name));
    }
  }
  lintWithRedocly(check, join(dir, "redocly.yaml"), file);
  lintWithSpectral(check, join(dir, "spectral.yaml"), file);
}
