import { defineEntity, p } from '@mikro-orm/postgresql';
import { Developer } from '../developers/developer.entity.ts';

/** An OAuth client registered with support for a developer; apps may reference only their own. */
const OAuthClientSchema = defineEntity({
  name: 'OAuthClient',
  tableName: 'oauth_clients',
  properties: {
    clientId: p.string().primary(),
    developer: () => p.manyToOne(Developer).deleteRule('cascade'),
    name: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class OAuthClient extends OAuthClientSchema.class {}
OAuthClientSchema.setClass(OAuthClient);
