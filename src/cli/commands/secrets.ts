import { resealWebhookSecrets } from '../../modules/webhooks/secret-rotation.ts';
import { resealTotpSecrets } from '../../modules/admin-sign-in/totp-secrets.ts';
import { runtimeOf, type CliCommand } from '../command.ts';

/**
 * After putting a new key first in WEBHOOK_ENCRYPTION_KEYS: seal every sealed secret (webhook
 * signing secrets, admins' TOTP secrets) under it, so the old key can go. Also seals TOTP secrets
 * that earlier versions stored in clear. `webhooks:reseal` is the same command under its old name.
 */
const reseal = (name: string): CliCommand => ({
  name,
  usage: name,
  description:
    name === 'secrets:reseal'
      ? 'Seal every sealed secret (webhook signing secrets, admin TOTP secrets) under the first WEBHOOK_ENCRYPTION_KEYS key (key rotation)'
      : 'The former name of secrets:reseal',
  needsDatabase: true,
  async run(input) {
    const { ctx } = runtimeOf(input);
    const keys = ctx.config.webhookEncryptionKeys;
    const webhooks = await resealWebhookSecrets(ctx.orm.em.fork(), keys);
    const totp = await resealTotpSecrets(ctx.orm.em.fork(), keys);
    input.print(`resealed ${webhooks.resealed} of ${webhooks.current} webhook endpoints under key "${keys[0]!.id}"`);
    input.print(`resealed ${totp.resealed} of ${totp.current} admin second factors under key "${keys[0]!.id}"`);
  },
});

export const secretCommands: CliCommand[] = [reseal('secrets:reseal'), reseal('webhooks:reseal')];
