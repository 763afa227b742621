import type { AppDossier } from '../apps/app-directory.ts';
import type { ReviewWarning } from '../../../views/admin/listing-review.ts';
export type { ReviewWarning } from '../../../views/admin/listing-review.ts';

export function reviewWarnings(kind: 'app' | 'revision', dossier: AppDossier): ReviewWarning[] {
  const checks = kind === 'app' ? dossier.app.assetChecks : (dossier.app.pendingRevision?.assetChecks ?? []);
  const problems = checks.filter((check) => !check.ok);
  const added = kind === 'revision' ? (dossier.app.pendingRevision?.addedPermissions ?? []) : [];
  const warnings: ReviewWarning[] = [];
  if (problems.length > 0) {
    warnings.push({
      kind: 'images',
      label: 'image problems',
      summary: `image problems: ${problems.map((check) => `${check.field} (${check.problems.join('; ')})`).join(', ')}`,
    });
  }
  if (dossier.lookalikes.length > 0) {
    warnings.push({
      kind: 'lookalike',
      label: 'look-alike names',
      summary: `look-alike names: ${dossier.lookalikes.map((l) => `${l.name} (similarity ${l.similarity})`).join(', ')}`,
    });
  }
  if (added.length > 0)
    warnings.push({ kind: 'permissions', label: 'new permissions', summary: `new permissions: ${added.map((p) => p.scope).join(', ')}` });
  return warnings;
}
