import { resealWebhookSecrets } from '../../modules/webhooks/secret-rotation.ts';
import { runtimeOf, type CliCommand } from '../command.ts';

/** After putting a new key first in WEBHOOK_ENCRYPTION_KEYS: seal every webhook secret under it, so the old key can go. */
export const webhooksReseal: CliCommand = {
  name: 'webhooks:reseal',
  usage: 'webhooks:reseal',
  description: 'Seal every webhook signing secret under the first WEBHOOK_ENCRYPTION_KEYS key (key rotation)',
  needsDatabase: true,
  async run(input) {
    const { ctx } = runtimeOf(input);
    const { resealed, current } = await resealWebhookSecrets(ctx.orm.em.fork(), ctx.config.webhookEncryptionKeys);
    input.print(`resealed ${resealed} of ${current} endpoints under key "${ctx.config.webhookEncryptionKeys[0]!.id}"`);
  },
};
