// The identity provider of the e2e.social tests: oidc-provider (a certified
// OpenID Connect / OAuth 2.0 server) on loopback over HTTPS, configured by
// the test through a JSON file given as the only argument:
//
//   { "cert": "localhost.pem", "key": "localhost.key",
//     "wrongCert": "...", "wrongKey": "...",
//     "ready": "<file written with {\"port\": N, \"wrongPort\": M} once listening>",
//     "clients": [{ "client_id", "client_secret", "redirect_uris",
//                   "token_endpoint_auth_method" }] }
//
// The provider also answers on a second port with `wrongCert`, a certificate
// from the same CA for another host name (a client must refuse it).
//
// PKCE is required for every client. Test-only additions (never part of a
// real provider):
//   POST /test/accounts {id, email, email_verified, name, login?, emails?}
//        creates or replaces an account (so a test can change an e-mail);
//   GET  /interaction/:uid         the login page (a form with "login"), or,
//                                  for the consent prompt, consent granted at
//                                  once (a user clicking "Allow");
//   POST /interaction/:uid/login   login=<account id>: logs that account in;
//   GET  /github/user, /github/user/emails
//        GitHub's non-OIDC user-info shape, answered from the access token
//        this provider issued ({id, login, name, email} and
//        [{email, primary, verified, visibility}]); 401 without a valid
//        token, 403 without a User-Agent (as GitHub does).
import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import https from 'node:https';
import Provider from 'oidc-provider';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const accounts = new Map();

async function readBody(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > 65536) throw new Error('body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const server = https.createServer({
  cert: readFileSync(config.cert),
  key: readFileSync(config.key),
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const issuer = `https://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: config.clients.map((c) => ({
      grant_types: ['authorization_code'],
      response_types: ['code'],
      ...c,
    })),
    pkce: { required: () => true },
    scopes: ['openid', 'email', 'profile', 'read:user', 'user:email'],
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name'],
    },
    cookies: { keys: ['rapport-e2e-social-cookie-key'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(ctx, id) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        async claims() {
          const a = accounts.get(id) ?? account;
          return { sub: id, email: a.email, email_verified: a.email_verified, name: a.name };
        },
      };
    },
  });

  async function accountOfBearer(ctx) {
    const header = ctx.get('authorization');
    const match = /^(?:Bearer|token) (.+)$/.exec(header);
    if (!match) return undefined;
    const token = await provider.AccessToken.find(match[1]);
    if (!token) return undefined;
    return { id: token.accountId, account: accounts.get(token.accountId) };
  }

  provider.use(async (ctx, next) => {
    const path = ctx.path;
    if (ctx.method === 'POST' && path === '/test/accounts') {
      const a = JSON.parse(await readBody(ctx.req));
      accounts.set(String(a.id), a);
      ctx.status = 204;
      return;
    }
    if (path.startsWith('/github/')) {
      if (!ctx.get('user-agent')) {
        ctx.status = 403;
        ctx.body = { message: 'Request forbidden by administrative rules.' };
        return;
      }
      const found = await accountOfBearer(ctx);
      if (!found?.account) {
        ctx.status = 401;
        ctx.body = { message: 'Bad credentials' };
        return;
      }
      const { id, account } = found;
      const emails = account.emails ?? [
        { email: account.email, primary: true, verified: !!account.email_verified,
          visibility: 'private' },
      ];
      if (ctx.method === 'GET' && path === '/github/user') {
        ctx.body = {
          id: /^[0-9]+$/.test(id) ? Number(id) : id,
          login: account.login ?? `user${id}`,
          name: account.name ?? null,
          email: null,
        };
        return;
      }
      if (ctx.method === 'GET' && path === '/github/user/emails') {
        ctx.body = emails;
        return;
      }
      ctx.status = 404;
      return;
    }
    const interaction = /^\/interaction\/([^/]+)(\/login)?$/.exec(path);
    if (interaction) {
      const details = await provider.interactionDetails(ctx.req, ctx.res);
      if (ctx.method === 'GET' && details.prompt.name === 'login') {
        ctx.type = 'html';
        ctx.body = `<form method="post" action="/interaction/${details.uid}/login">` +
          '<input name="login"><button>Sign in</button></form>';
        return;
      }
      if (ctx.method === 'POST' && interaction[2]) {
        const form = new URLSearchParams(await readBody(ctx.req));
        const accountId = form.get('login') ?? '';
        if (!accounts.has(accountId)) {
          ctx.status = 400;
          ctx.body = 'unknown account';
          return;
        }
        const to = await provider.interactionResult(ctx.req, ctx.res,
          { login: { accountId } }, { mergeWithLastSubmission: false });
        ctx.status = 303;
        ctx.redirect(to);
        return;
      }
      if (ctx.method === 'GET' && details.prompt.name === 'consent') {
        const { prompt: { details: missing }, params, session } = details;
        const grant = details.grantId
          ? await provider.Grant.find(details.grantId)
          : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
        if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
        if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
        if (missing.missingResourceScopes) {
          for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes)) {
            grant.addResourceScope(indicator, scopes.join(' '));
          }
        }
        const grantId = await grant.save();
        const to = await provider.interactionResult(ctx.req, ctx.res,
          { consent: { grantId } }, { mergeWithLastSubmission: true });
        ctx.status = 303;
        ctx.redirect(to);
        return;
      }
      ctx.status = 400;
      ctx.body = `unexpected interaction ${details.prompt.name}`;
      return;
    }
    await next();
  });

  server.on('request', provider.callback());
  const wrong = https.createServer({
    cert: readFileSync(config.wrongCert),
    key: readFileSync(config.wrongKey),
  }, provider.callback());
  wrong.listen(0, '127.0.0.1', () => {
    const ready = `${config.ready}.tmp`;
    writeFileSync(ready, JSON.stringify({ port, wrongPort: wrong.address().port }));
    renameSync(ready, config.ready);
  });
});

process.on('SIGTERM', () => server.close(() => process.exit(0)));
