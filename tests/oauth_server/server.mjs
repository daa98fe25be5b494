// A real OAuth 2.1 authorization server for the end-to-end test of our client
// (tests/it/protected_e2e.rs): panva's `oidc-provider`, a certified OpenID provider, set up
// the way an MCP deployment sets one up. It is not ours, so the test proves our client talks
// to an authorization server we did not write.
//
// - discovery at /.well-known/openid-configuration (RFC 8414 fields), RFC 9207 `iss` on the
//   authorization response;
// - dynamic client registration (RFC 7591) at /reg;
// - authorization code + PKCE S256 (required for every client), refresh tokens;
// - resource indicators (RFC 8707): the one resource it knows is AS_RESOURCE, and its access
//   tokens are ES256 JWTs with `aud` = that resource and scope `mcp:tools`;
// - the "user": the login page at /interaction/<uid> signs in whoever the form names
//   (POST ?user=<name>) and grants what the client asked, so a headless test plays the person.
//
// Environment: AS_PORT, AS_RESOURCE, AS_TLS_CERT and AS_TLS_KEY (PEM files: served over
// https), AS_PUBLIC_KEY_OUT (where to write the PEM public key its tokens are signed with: a
// fresh EC P-256 key each run, as the resource server is given it), AS_TOKEN_TTL (seconds,
// default 600). Prints `listening <issuer>` once it accepts connections.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import Provider, { errors } from 'oidc-provider';

const env = (name) => {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} is not set`);
    process.exit(2);
  }
  return value;
};

const port = Number(env('AS_PORT'));
const resource = env('AS_RESOURCE');
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
writeFileSync(env('AS_PUBLIC_KEY_OUT'), publicKey.export({ type: 'spki', format: 'pem' }));
const signingKey = privateKey.export({ format: 'jwk' });
const tokenTtl = Number(process.env.AS_TOKEN_TTL ?? 600);
const issuer = `https://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  jwks: { keys: [{ ...signingKey, alg: 'ES256', use: 'sig', kid: 'test-signing-key' }] },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, indicator) => {
        if (indicator !== resource) throw new errors.InvalidTarget();
        return {
          scope: 'mcp:tools',
          audience: resource,
          accessTokenTTL: tokenTtl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        };
      },
    },
  },
  scopes: ['mcp:tools', 'offline_access'],
  pkce: { required: () => true },
  clientDefaults: {
    grant_types: ['authorization_code', 'refresh_token'],
    id_token_signed_response_alg: 'ES256',
  },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
  issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  ttl: {
    Interaction: 600,
    Session: 3600,
    Grant: 3600,
    AccessToken: tokenTtl,
    RefreshToken: 3600,
    AuthorizationCode: 60,
  },
});

const interaction = /^\/interaction\/([^/?]+)(?:\?user=([a-z0-9_-]+))?$/;

async function login(req, res, user) {
  const details = await provider.interactionDetails(req, res);
  if (req.method !== 'POST' || !user) {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`Sign in: POST /interaction/${details.uid}?user=<name>\n`);
    return;
  }
  const grant = new provider.Grant({ accountId: user, clientId: details.params.client_id });
  const scope = details.params.scope ?? '';
  grant.addOIDCScope(scope);
  grant.addResourceScope(details.params.resource ?? resource, scope);
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId: user }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}

const oidc = provider.callback();
const tls = { cert: readFileSync(env('AS_TLS_CERT')), key: readFileSync(env('AS_TLS_KEY')) };
createServer(tls, (req, res) => {
  const match = req.url.match(interaction);
  if (!match) return oidc(req, res);
  login(req, res, match[2]).catch((error) => {
    res.writeHead(400, { 'content-type': 'text/plain' });
    res.end(`${error}\n`);
  });
}).listen(port, '127.0.0.1', () => console.log(`listening ${issuer}`));
