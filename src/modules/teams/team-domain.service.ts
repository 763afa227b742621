import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError, validationFailed } from '../../http/problem.ts';
import { safeFetch, SafeFetchError } from '../../lib/safe-fetch.ts';
import { bumpCatalogueVersion } from '../catalogue/catalogue-version.ts';
import { authorizeTeam, type Caller } from './access.ts';
import { recordTeamAudit } from './team-audit.ts';
import { Team } from './team.entity.ts';
import type { DomainClaim, TeamView } from './teams.model.ts';
import { teamViewFor } from './teams.service.ts';

/**
 * A team proves it controls a domain by serving a token at the domain's well-known path; the
 * marketplace fetches it through the SSRF guard. One team per domain. Outside production with
 * private fetches allowed (tests, local development) a domain may carry a port and is fetched over http.
 */
export const WELL_KNOWN_PATH = '/.well-known/marketplace-publisher.txt';

export interface DomainPolicy {
  /** `ALLOW_PRIVATE_FETCH` outside production. */
  allowPrivate: boolean;
}

const FETCH_LIMITS = { maxBytes: 4096, timeoutMs: 5_000, maxRedirects: 2 };

function normaliseDomain(domain: string, policy: DomainPolicy): string {
  const value = domain.toLowerCase().replace(/\.$/, '');
  const [host = '', port] = value.split(':');
  const labels = host.split('.');
  const valid = labels.length >= 2 && labels.every((label) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(label));
  if (!valid || (port !== undefined && !policy.allowPrivate)) {
    throw validationFailed('The request body is invalid', [{ path: 'domain', message: 'must be a host name such as example.com, without a port' }]);
  }
  return value;
}

const urlOf = (domain: string, policy: DomainPolicy) => `${policy.allowPrivate ? 'http' : 'https'}://${domain}${WELL_KNOWN_PATH}`;

async function assertNotTaken(em: EntityManager, teamId: string, domain: string): Promise<void> {
  if ((await em.count(Team, { verifiedDomain: domain, id: { $ne: teamId } })) > 0)
    throw new ApiError(409, 'DOMAIN_TAKEN', `${domain} is verified by another team`);
}

/** Starts (or restarts) a claim: a fresh token to serve. Owners only. */
export async function claimDomain(
  em: EntityManager,
  policy: DomainPolicy,
  caller: Caller,
  teamId: string,
  input: { domain: string },
): Promise<DomainClaim> {
  const domain = normaliseDomain(input.domain, policy);
  return em.transactional(async (tx) => {
    await authorizeTeam(tx, caller, teamId, 'manage', { lock: true });
    await assertNotTaken(tx, teamId, domain);
    const team = await tx.findOneOrFail(Team, { id: teamId });
    team.pendingDomain = domain;
    team.domainToken = `marketplace-publisher=${teamId}.${Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString('base64url')}`;
    recordTeamAudit(tx, { teamId, actorDeveloperId: caller.developerId, action: 'domain.claimed', target: domain });
    return { domain, token: team.domainToken, url: urlOf(domain, policy) };
  });
}

/** What the domain serves, briefly described for the owner when it is not the token. */
async function servedToken(url: string, policy: DomainPolicy): Promise<{ text: string } | { problem: string }> {
  try {
    const response = await safeFetch(url, { ...FETCH_LIMITS, allowPrivate: policy.allowPrivate });
    return { text: new TextDecoder().decode(response.bytes).trim() };
  } catch (error) {
    if (error instanceof SafeFetchError) return { problem: error.reason };
    throw error;
  }
}

/** Fetches the token; on a match the domain becomes the team's verified domain (shown on its listings). */
export async function verifyDomain(em: EntityManager, policy: DomainPolicy, caller: Caller, teamId: string): Promise<TeamView> {
  await authorizeTeam(em, caller, teamId, 'manage');
  const claim = await em.fork().findOneOrFail(Team, { id: teamId });
  if (!claim.pendingDomain || !claim.domainToken) {
    throw new ApiError(400, 'DOMAIN_NOT_VERIFIED', 'No domain is being claimed: POST /api/dev/teams/{id}/domain first');
  }
  const url = urlOf(claim.pendingDomain, policy);
  // Outside the transaction: a slow or hostile server must not hold the team's row lock.
  const served = await servedToken(url, policy);
  if ('problem' in served) throw new ApiError(400, 'DOMAIN_NOT_VERIFIED', `Could not fetch ${url}: ${served.problem}`);
  if (served.text !== claim.domainToken) {
    const shown = served.text.length > 80 ? `${served.text.slice(0, 80)}…` : served.text;
    throw new ApiError(400, 'DOMAIN_NOT_VERIFIED', `${url} does not serve the token (found ${shown ? JSON.stringify(shown) : 'an empty body'})`);
  }
  await em.transactional(async (tx) => {
    await authorizeTeam(tx, caller, teamId, 'manage', { lock: true });
    const team = await tx.findOneOrFail(Team, { id: teamId });
    // The claim may have changed while the token was fetched: only the claim that was checked is verified.
    if (team.pendingDomain !== claim.pendingDomain || team.domainToken !== claim.domainToken) {
      throw new ApiError(409, 'CONFLICT', 'The claim changed while it was being verified; verify again');
    }
    await assertNotTaken(tx, teamId, claim.pendingDomain!);
    team.verifiedDomain = claim.pendingDomain;
    team.pendingDomain = null;
    team.domainToken = null;
    recordTeamAudit(tx, { teamId, actorDeveloperId: caller.developerId, action: 'domain.verified', target: team.verifiedDomain });
    await bumpCatalogueVersion(tx);
  });
  return teamViewFor(em, caller.developerId, teamId);
}
