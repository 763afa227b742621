import { Elysia, t } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import type { AuthPlugin } from '../identity/auth.ts';
import { DataList, IdParams, PageQuery, Paginated, problems, Uuid } from '../../http/schemas.ts';
import { listRevisions, RevisionRecordView } from './revision-history.ts';
import {
  CreateAppBody,
  DataHandlingInput,
  OwnerAppView,
  PermissionInput,
  PermissionView,
  PreflightView,
  SubmittedAppView,
  UpdateAppBody,
} from './apps.model.ts';
import { createApp, deleteApp, getOwnApp, listOwnApps, updateApp } from './apps.service.ts';
import { preflight, submitApp } from './submission.ts';
import { openRevision } from './revisions.service.ts';
import { withdrawRevision, withdrawSubmission } from './withdrawal.ts';
import { accessProblems, callerOf } from '../teams/access.ts';
import { VERIFIED_PROBLEMS } from '../developers/verification.ts';

export function appsApi(ctx: AppContext, auth: AuthPlugin) {
  const deps = () => ({ em: ctx.orm.em.fork(), jobs: ctx.jobs, platformScopes: ctx.config.platformScopes });
  return new Elysia({ prefix: '/api/dev/apps', tags: ['Developer apps'] })
    .model({ PermissionInput, PermissionView, DataHandling: DataHandlingInput })
    .use(auth)
    .post(
      '',
      async ({ principal, body, status }) =>
        status(201, await createApp({ ...deps(), maxApps: ctx.config.maxAppsPerDeveloper }, callerOf(principal), body)),
      {
        apiKey: 'APP_CREATE',
        body: CreateAppBody,
        response: {
          201: OwnerAppView,
          ...problems('VALIDATION_FAILED', 'UNKNOWN_OAUTH_CLIENT', 'LIMIT_EXCEEDED', ...accessProblems('create')),
        },
        detail: {
          summary: 'Create an app listing',
          description:
            'Needs APP_CREATE. The app starts as a DRAFT at version 1 with a slug made from its name. Drafts may be incomplete; at most 6 screenshots. `oauthClientId` must name a client support registered to you. `permissions` (platform scopes from the configured list, each once, with a reason) and `dataHandling` disclose what the app does with workspace data; unknown or repeated scopes are 400 VALIDATION_FAILED naming the allowed ones. At most 100 apps per developer, whatever their status (409 LIMIT_EXCEEDED; the operator can change the cap with MAX_APPS_PER_DEVELOPER).',
        },
      },
    )
    .get('', async ({ principal, query }) => listOwnApps(ctx.orm.em.fork(), callerOf(principal), query), {
      apiKey: 'APP_READ',
      query: t.Object({ ...PageQuery, teamId: t.Optional(Uuid) }),
      response: {
        200: Paginated(OwnerAppView, 'A page of your apps (personal and of your teams), newest first'),
        ...problems(...accessProblems('read')),
      },
      detail: {
        summary: 'List your apps',
        description:
          'Needs APP_READ. Your personal apps and those of every team you belong to; `teamId` narrows to one team (404 if you are not a member), a team key always lists its team. Newest first; `page` ≥ 1, `limit` 1–100 (default 20), page × limit ≤ 10,000.',
      },
    })
    .get('/:id', async ({ principal, params }) => getOwnApp(ctx.orm.em.fork(), callerOf(principal), params.id), {
      apiKey: 'APP_READ',
      params: IdParams,
      response: { 200: OwnerAppView, ...problems(...accessProblems('read')) },
      detail: { summary: 'Read one of your apps', description: 'Needs APP_READ. Includes asset check results and any pending revision.' },
    })
    .put('/:id', async ({ principal, params, body }) => updateApp(deps(), callerOf(principal), params.id, body), {
      apiKey: 'APP_UPDATE',
      params: IdParams,
      body: UpdateAppBody,
      response: {
        200: OwnerAppView,
        ...problems(...accessProblems('edit'), 'APP_NOT_EDITABLE', 'SUBMISSION_INCOMPLETE', 'UNKNOWN_OAUTH_CLIENT', 'VALIDATION_FAILED'),
      },
      detail: {
        summary: 'Update one of your apps',
        description:
          'Needs APP_UPDATE. Omitted fields are unchanged; `null` clears an optional field; `environment` cannot change. Allowed while DRAFT, PENDING (stays PENDING, keeps its place in the queue, and must stay complete: 400 SUBMISSION_INCOMPLETE otherwise) or REJECTED; an APPROVED or SUSPENDED app is 409 APP_NOT_EDITABLE (open a revision). Every edit increments `version`.',
      },
    })
    .delete('/:id', async ({ principal, params }) => deleteApp(ctx.orm.em.fork(), callerOf(principal), params.id), {
      apiKey: 'APP_DELETE',
      params: IdParams,
      response: { 200: OwnerAppView, ...problems(...accessProblems('delete'), 'APP_NOT_EDITABLE') },
      detail: {
        summary: 'Delete one of your apps',
        description:
          'Needs APP_DELETE. Returns the deleted app. Not allowed for APPROVED or SUSPENDED apps (409 APP_NOT_EDITABLE). Its slug is never reused.',
      },
    })
    .post('/:id/submit', async ({ principal, params }) => submitApp(deps(), callerOf(principal), params.id), {
      apiKey: { scope: 'APP_UPDATE', limit: 'submissions' },
      params: IdParams,
      response: {
        200: SubmittedAppView,
        ...problems(...accessProblems('submit'), 'INVALID_STATE_TRANSITION', ...VERIFIED_PROBLEMS, 'SUBMISSION_INCOMPLETE'),
      },
      detail: {
        summary: 'Submit an app for review',
        description:
          'Needs APP_UPDATE. DRAFT or REJECTED → PENDING. Needs a verified developer (403 DEVELOPER_NOT_VERIFIED) and a complete listing: logoUrl and 2–6 screenshots (400 SUBMISSION_INCOMPLETE, `errors` names what is missing); an app with an `oauthClientId` also needs `permissions` and `dataHandling`.',
      },
    })
    .post('/:id/preflight', async ({ principal, params }) => preflight(ctx.orm.em.fork(), callerOf(principal), params.id), {
      apiKey: 'APP_READ',
      params: IdParams,
      response: { 200: PreflightView, ...problems(...accessProblems('read')) },
      detail: {
        summary: 'Check whether an app can be submitted',
        description:
          'Needs APP_READ. The submission checklist, without submitting or changing anything: `errors` would refuse a submission now; `warnings` are what the asset checks found (or have not checked yet), which a submission does not wait for.',
      },
    })
    .post(
      '/:id/revisions',
      async ({ principal, params, body, status }) => status(201, await openRevision(deps(), callerOf(principal), params.id, body)),
      {
        apiKey: { scope: 'APP_UPDATE', limit: 'revisions' },
        params: IdParams,
        body: UpdateAppBody,
        response: {
          201: OwnerAppView,
          ...problems(...accessProblems('revise'), 'INVALID_STATE_TRANSITION', 'SUBMISSION_INCOMPLETE', 'UNKNOWN_OAUTH_CLIENT', 'VALIDATION_FAILED'),
        },
        detail: {
          summary: 'Propose a change to an approved app',
          description:
            'Needs APP_UPDATE. Body as PUT. Only for APPROVED or SUSPENDED apps (else 409 INVALID_STATE_TRANSITION). The live listing is unchanged until an admin approves. A proposal made while one is pending merges into it (its fields win) and bumps `pendingRevision.version`. The listing the revision would produce must stay complete (logo, 2–6 screenshots; else 400 SUBMISSION_INCOMPLETE). Returns the app with `pendingRevision`; scopes it adds to the live `permissions` are listed in `pendingRevision.addedPermissions` and become public only when approved.',
        },
      },
    )
    .post('/:id/withdraw', async ({ principal, params }) => withdrawSubmission(deps(), callerOf(principal), params.id), {
      apiKey: 'APP_UPDATE',
      params: IdParams,
      response: { 200: OwnerAppView, ...problems(...accessProblems('submit'), 'INVALID_STATE_TRANSITION') },
      detail: {
        summary: 'Withdraw a submission',
        description:
          'Needs APP_UPDATE. PENDING → DRAFT: the app leaves the review queue (a reviewer working on it is released) and can be edited and submitted again. Any other state is 409 INVALID_STATE_TRANSITION.',
      },
    })
    .delete('/:id/revision', async ({ principal, params }) => withdrawRevision(deps(), callerOf(principal), params.id), {
      apiKey: 'APP_UPDATE',
      params: IdParams,
      response: { 200: OwnerAppView, ...problems(...accessProblems('revise')) },
      detail: {
        summary: 'Withdraw the pending revision',
        description:
          'Needs APP_UPDATE. The pending revision leaves the review queue; the live listing is unchanged. 404 when the app has no pending revision. Returns the app.',
      },
    })
    .get('/:id/revisions', async ({ principal, params }) => ({ data: await listRevisions(ctx.orm.em.fork(), callerOf(principal), params.id) }), {
      apiKey: 'APP_READ',
      params: IdParams,
      response: { 200: DataList(RevisionRecordView, 'The app’s revisions, newest first'), ...problems(...accessProblems('read')) },
      detail: {
        summary: "An app's revisions and their outcomes",
        description: 'Needs APP_READ. Newest first (the last 100): each with its status, the fields it changed, and the reason when it was rejected.',
      },
    });
}
