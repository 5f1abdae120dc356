// e2e.openapi: the API document as tools read it (issue 11, docs/openapi.md).
//   node openapi_test.mjs RAPPORTD WORKDIR
// 1. Starts RAPPORTD (SQLite, port 0) in WORKDIR and fetches GET /v1/openapi.json.
// 2. Validates it with a real validator: @apidevtools/swagger-parser (OpenAPI
//    3.1 schema and its JSON Schemas, $refs resolved), and lints it with
//    Redocly CLI (recommended rules, redocly.yaml) and Spectral (spectral:oas
//    recommended, spectral.yaml): zero errors and zero warnings
//    (document_checks.mjs, which e2e.custom_fields shares).
// 3. Compares it with `rapportd routes` (the router's own list): every route
//    is an operation, and nothing else is; operationIds are unique; public
//    routes have no security, the others bearer.
// 4. Validates live answers of an acceptance-style flow (register, refresh,
//    contacts, events, errors) with ajv (JSON Schema 2020-12) against the
//    document, status and required headers included: an independent check of
//    the host's own api.check_responses.
// Prints "N passed, N failed"; exits 1 when something failed.
// Why SQLite only: the document does not depend on the engine; answers on
// both engines are checked by api.check_responses in every e2e suite.
import { spawn, execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { checkDocument, checks } from "./document_checks.mjs";

const [rapportd, workDir] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
const { check, finish } = checks();

// A fresh database every run: one left by an earlier build may hold another
// release's migrations.
rmSync(workDir, { recursive: true, force: true });
mkdirSync(workDir, { recursive: true });
const config = `${workDir}/rapport.properties`;
writeFileSync(
  config,
  [
    `database.url = sqlite:${workDir}/rapport.db`,
    "server.host = 127.0.0.1",
    "server.port = 0",
    `mail.outbox = ${workDir}/outbox`,
    `secrets.key_file = ${workDir}/secret.key`,
    "api.check_responses = true",
    "",
  ].join("\n"),
);

function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(rapportd, ["--config", config], { cwd: workDir });
    let log = "";
    const timer = setTimeout(() => reject(new Error(`rapportd did not listen:\n${log}`)), 60000);
    child.stderr.on("data", (chunk) => {
      log += chunk;
      const m = /msg=listening .*port=(\d+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), log: () => log });
      }
    });
    child.on("exit", (code) => reject(new Error(`rapportd exited (${code}):\n${log}`)));
  });
}

const server = await startServer();
const base = `http://127.0.0.1:${server.port}`;
async function call(method, path, body, token) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get("content-type"), headers: res.headers,
           json: text === "" ? undefined : JSON.parse(text) };
}

try {
  // ---------------------------------------------------------------- 1, 2
  const fetched = await call("GET", "/v1/openapi.json");
  check("GET /v1/openapi.json is 200 JSON", fetched.status === 200 && /json/.test(fetched.type));
  const doc = fetched.json;
  check("it is the document itself (no envelope)", doc.openapi === "3.1.0" && !("data" in doc));
  // Beside the rulesets: .redocly.lint-ignore.yaml names it openapi.json.
  await checkDocument(doc, here, check);
  const again = await call("GET", "/v1/openapi.json");
  check("the document is the same on every request",
        JSON.stringify(again.json) === JSON.stringify(doc));

  // ---------------------------------------------------------------- 3
  const routes = execFileSync(rapportd, ["--config", config, "routes"], { cwd: workDir })
    .toString()
    .trim()
    .split("\n")
    .map((line) => line.split(" "));
  check("rapportd routes lists the routes", routes.length > 60, `${routes.length} lines`);
  const missing = routes.filter(([m, p]) => !doc.paths?.[p]?.[m.toLowerCase()]);
  check("every registered route is an operation", missing.length === 0,
        missing.map((r) => r.join(" ")).join(", "));
  const operations = Object.entries(doc.paths).flatMap(([p, item]) =>
    Object.entries(item).map(([m, op]) => ({ path: p, method: m, op })));
  check("the document has no operation the router lacks", operations.length === routes.length,
        `${operations.length} operations, ${routes.length} routes`);
  const ids = new Set(operations.map((o) => o.op.operationId));
  check("operationIds are unique", ids.size === operations.length);
  const modules = new Set(routes.map((r) => r[2]));
  for (const module of modules) {
    check(`module ${module} has its operations, tagged with its name`,
          operations.some((o) => o.op["x-rapport-module"] === module));
  }
  const login = doc.paths["/v1/auth/login"]?.post;
  check("a public route (POST /v1/auth/login) needs no token",
        Array.isArray(login?.security) && login.security.length === 0);
  const contacts = doc.paths["/v1/crm/contacts"]?.get;
  check("an authenticated route (GET /v1/crm/contacts) uses the bearer scheme, or a key with contacts:read",
        contacts && contacts.security?.some((r) => r.bearerAuth !== undefined) &&
        contacts.security?.some((r) => r.apiKey !== undefined) &&
        contacts["x-rapport-scope"] === "contacts:read" &&
        doc.components?.securitySchemes?.apiKey?.scheme === "bearer" &&
        doc.security?.[0]?.bearerAuth !== undefined && "401" in contacts.responses);
  const members = doc.paths["/v1/company/members"]?.get;
  check("an account route (GET /v1/company/members) refuses keys: bearer scheme only, 403",
        members && members["x-rapport-scope"] === undefined &&
        (members.security === undefined ||
         members.security.every((r) => r.apiKey === undefined)) && "403" in members.responses);
  check("an {id} route answers 404 in the document",
        "404" in (doc.paths["/v1/crm/contacts/{id}"]?.get?.responses ?? {}));
  const headerNames = (op) => (op?.parameters ?? []).filter((p) => p.in === "header").map((p) => p.name);
  check("an authenticated POST takes Idempotency-Key (409 and 422 listed); login does not",
        headerNames(doc.paths["/v1/crm/contacts"]?.post).includes("Idempotency-Key") &&
        "409" in doc.paths["/v1/crm/contacts"].post.responses &&
        !headerNames(login).includes("Idempotency-Key"));
  const record = doc.paths["/v1/crm/deals/{id}"];
  check("a record's GET takes If-None-Match, sends ETag and may answer 304",
        headerNames(record?.get).includes("If-None-Match") && "304" in record.get.responses &&
        "ETag" in record.get.responses["200"].headers);
  check("a record's writes and state actions take If-Match and may answer 412",
        [record?.patch, record?.delete, doc.paths["/v1/crm/deals/{id}/win"]?.post].every(
            (op) => headerNames(op).includes("If-Match") && "412" in op.responses));
  check("lists are not conditional",
        !headerNames(doc.paths["/v1/crm/deals"]?.get).includes("If-None-Match"));
  const refresh = doc.paths["/v1/auth/refresh"]?.post;
  check("POST /v1/auth/refresh requires the bearer token (no security override, 401 listed)",
        refresh && refresh.security === undefined && "401" in refresh.responses);
  const requiredOf = (schema) =>
    schema?.$ref ? doc.components.schemas[schema.$ref.split("/").pop()]?.required : schema?.required;
  const optionalBodies = operations.filter((o) => {
    const body = o.op.requestBody;
    return body && (requiredOf(body.content["application/json"].schema)?.length ?? 0) > 0 &&
           body.required !== true;
  });
  check("every request body with required fields is marked required",
        optionalBodies.length === 0,
        optionalBodies.map((o) => `${o.method.toUpperCase()} ${o.path}`).join(", "));
  const minLengthOnNullable = [];
  const walk = (schema, where) => {
    if (!schema || typeof schema !== "object") return;
    if (Array.isArray(schema.type) && schema.type.includes("null") &&
        schema.type.includes("string") && (schema.minLength ?? 0) > 0) {
      minLengthOnNullable.push(where);
    }
    for (const [key, value] of Object.entries(schema)) walk(value, `${where}.${key}`);
  };
  for (const o of operations) walk(o.op.requestBody, `${o.method.toUpperCase()} ${o.path}`);
  check("no optional (nullable) text field of a body demands a minLength (\"\" clears it)",
        minLengthOnNullable.length === 0, minLengthOnNullable.join(", "));
  const bare = [];
  const walkBare = (schema, where) => {
    if (!schema || typeof schema !== "object") return;
    if (schema.type === "object" && !schema.properties && schema.additionalProperties === undefined) {
      bare.push(where);
    }
    for (const [key, value] of Object.entries(schema)) walkBare(value, `${where}.${key}`);
  };
  for (const [name, schema] of Object.entries(doc.components.schemas)) walkBare(schema, name);
  for (const o of operations) {
    if (o.path === "/v1/openapi.json") continue;  // the document itself: any object
    walkBare(o.op.responses, `${o.method.toUpperCase()} ${o.path}`);
  }
  check("no answer schema is a bare object (properties or additionalProperties say what is in it)",
        bare.length === 0, bare.join(", "));
  check("servers and global tags are declared, and every operation's tag is one of them",
        doc.servers?.length > 0 &&
        operations.every((o) => o.op.tags.every((t) => doc.tags.some((g) => g.name === t))));
  check("every operation has a description",
        operations.every((o) => typeof o.op.description === "string" && o.op.description !== ""));
  const undescribed = operations.filter((o) => o.op.summary === `${o.method.toUpperCase()} ${o.path}`);
  check("every operation is described (has a summary of its own)", undescribed.length === 0,
        undescribed.map((o) => `${o.method.toUpperCase()} ${o.path}`).join(", "));

  // ---------------------------------------------------------------- 4
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: "doc", components: doc.components }, "doc");
  // The answer's schema: the operation's response for its status, $refs to
  // components resolved by ajv against the document.
  function answerSchema(method, path, status) {
    let response = doc.paths[path]?.[method.toLowerCase()]?.responses?.[String(status)];
    if (response?.$ref) response = doc.components.responses[response.$ref.split("/").pop()];
    const schema = response?.content?.["application/json"]?.schema;
    return schema && JSON.parse(JSON.stringify(schema).replaceAll('"#/components', '"doc#/components'));
  }
  // The headers the answer's description marks required, missing from it.
  function missingHeaders(method, path, status, headers) {
    let response = doc.paths[path]?.[method.toLowerCase()]?.responses?.[String(status)];
    if (response?.$ref) response = doc.components.responses[response.$ref.split("/").pop()];
    return Object.entries(response?.headers ?? {})
      .filter(([name, h]) => {
        const header = h.$ref ? doc.components.headers[h.$ref.split("/").pop()] : h;
        return header.required && !headers.has(name);
      })
      .map(([name]) => name);
  }
  async function expectAnswer(name, method, template, path, status, body, token) {
    const answer = await call(method, path, body, token);
    const schema = answerSchema(method, template, answer.status);
    if (answer.status !== status || !schema) {
      check(name, false, `status ${answer.status} (wanted ${status}), schema ${!!schema}: ` +
                         JSON.stringify(answer.json));
      return answer.json;
    }
    const validate = ajv.compile(schema);
    const missing = missingHeaders(method, template, answer.status, answer.headers);
    check(name, validate(answer.json) && missing.length === 0,
          `${JSON.stringify(validate.errors)}; missing headers: ${missing.join(", ")}`);
    return answer.json;
  }
  const email = `openapi-${Date.now()}@example.com`;
  const registered = await expectAnswer(
    "register (201) matches its schema", "POST", "/v1/auth/register", "/v1/auth/register", 201,
    { name: "Ada", email, password: "correct horse battery", password_confirmation:
      "correct horse battery", company_name: "OpenAPI Ltd" });
  const token = registered?.data?.token;
  await expectAnswer("GET /v1/versions matches", "GET", "/v1/versions", "/v1/versions", 200);
  await expectAnswer("GET /healthz matches", "GET", "/healthz", "/healthz", 200);
  const created = await expectAnswer(
    "create a contact (201) matches", "POST", "/v1/crm/contacts", "/v1/crm/contacts", 201,
    { name: "Grace Hopper", email: `grace-${Date.now()}@example.com`,
      tags: ["navy", "cobol"] }, token);
  const id = created?.data?.id ?? "cont_missing";
  await expectAnswer("get the contact matches", "GET", "/v1/crm/contacts/{id}",
                     `/v1/crm/contacts/${id}`, 200, undefined, token);
  await expectAnswer("list contacts (paged) matches", "GET", "/v1/crm/contacts",
                     "/v1/crm/contacts?per_page=5", 200, undefined, token);
  await expectAnswer("a 401 matches the Unauthorized answer", "GET", "/v1/crm/contacts",
                     "/v1/crm/contacts", 401);
  await expectAnswer("a 404 matches the NotFound answer", "GET", "/v1/crm/contacts/{id}",
                     "/v1/crm/contacts/cont_nothere", 404, undefined, token);
  await expectAnswer("a 422 matches the ValidationFailed answer", "POST", "/v1/crm/contacts",
                     "/v1/crm/contacts", 422, { email: "not an address" }, token);
  await expectAnswer("delete the contact matches", "DELETE", "/v1/crm/contacts/{id}",
                     `/v1/crm/contacts/${id}`, 200, undefined, token);
  await expectAnswer("the event log, with its cursor meta, matches", "GET", "/v1/events",
                     "/v1/events?limit=2", 200, undefined, token);
  await expectAnswer("an error sample (404) matches", "GET", "/v1/errors/sample",
                     "/v1/errors/sample?status=404", 404, undefined, token);
  check("GET /v1/errors/sample declares no success",
        !Object.keys(doc.paths["/v1/errors/sample"].get.responses).some((s) => s.startsWith("2")));
  await expectAnswer("a refresh without a token is the declared 401", "POST", "/v1/auth/refresh",
                     "/v1/auth/refresh", 401);
  await expectAnswer("a refresh with the token matches", "POST", "/v1/auth/refresh",
                     "/v1/auth/refresh", 200, undefined, token);
  check("rapportd logged no answer that disagrees with its description",
        !server.log().includes("does not match its route's description"));
} finally {
  server.child.kill("SIGTERM");
}
finish();
