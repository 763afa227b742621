import { Elysia } from 'elysia';
import { ProblemSchema } from '../../http/schemas.ts';
import {
  AssetCheckView,
  CreateAppBody,
  OwnerAppView,
  PendingRevisionView,
  PreflightView,
  PublicAppView,
  ReviewStandingView,
  SubmittedAppView,
  UpdateAppBody,
} from '../apps/apps.model.ts';
import { CategoryCount, PublicAppSummary } from '../catalogue/catalogue.model.ts';
import { ApiKeyView, CreateApiKeyBody, CreatedApiKey } from '../api-keys/api-keys.model.ts';
import { DeveloperProfile, RegisterDeveloperBody, UpdateDeveloperBody } from '../developers/developers.model.ts';
import { InstallBody, InstallResult } from '../installs/installs.model.ts';
import { DeveloperReview, ListedReview, ReplyBody, ReplyView, ReviewBody, ReviewView } from '../reviews/reviews.model.ts';
import { CreateWebhookBody, DeliveryView, UpdateWebhookBody, WebhookView, WebhookWithSecret } from '../webhooks/webhooks.model.ts';
import { AppAnalytics } from '../analytics/analytics.model.ts';
import { RevisionRecordView } from '../apps/revision-history.ts';
import { CreateTrustedPublisherBody, ExchangedKey, TokenExchangeBody, TrustedPublisherView } from '../trusted-publishing/trusted-publishing.model.ts';

/**
 * The schemas the API document names (`components.schemas`), so a generated client has a type to
 * import for each. `.model()` stamps each with its `$id`; the document then refers to it wherever
 * a route's schema contains it (`api-document.ts`).
 */
export const API_MODELS = {
  Problem: ProblemSchema,
  App: PublicAppView,
  AppSummary: PublicAppSummary,
  CategoryCount,
  OwnerApp: OwnerAppView,
  SubmittedApp: SubmittedAppView,
  Preflight: PreflightView,
  PendingRevision: PendingRevisionView,
  AssetCheck: AssetCheckView,
  ReviewStanding: ReviewStandingView,
  CreateApp: CreateAppBody,
  UpdateApp: UpdateAppBody,
  RevisionRecord: RevisionRecordView,
  Developer: DeveloperProfile,
  RegisterDeveloper: RegisterDeveloperBody,
  UpdateDeveloper: UpdateDeveloperBody,
  ApiKey: ApiKeyView,
  CreatedApiKey,
  CreateApiKey: CreateApiKeyBody,
  Install: InstallBody,
  InstallResult,
  Review: ReviewView,
  ListedReview,
  DeveloperReview,
  CreateReview: ReviewBody,
  Reply: ReplyView,
  CreateReply: ReplyBody,
  Webhook: WebhookView,
  WebhookWithSecret,
  CreateWebhook: CreateWebhookBody,
  UpdateWebhook: UpdateWebhookBody,
  WebhookDelivery: DeliveryView,
  AppAnalytics,
  TrustedPublisher: TrustedPublisherView,
  CreateTrustedPublisher: CreateTrustedPublisherBody,
  TokenExchange: TokenExchangeBody,
  ExchangedKey,
};

export const apiModels = new Elysia({ name: 'api-models' }).model(API_MODELS);
