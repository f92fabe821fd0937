import type { Tool, ToolQueue } from '@/types/api';

// The JSON is GET /api/tools/ as the server answers one ordinary partner (its catalogue order, nav groups
// and the serializers' choice lists); keep it in step with platform/tools/catalogue.
import CATALOGUE from '@/testing/tools-catalogue.json';

/** The catalogue as GET /api/tools/ answers it; `overrides` by slug change single entries. */
export function catalogue(overrides: Record<string, Partial<Tool>> = {}): Tool[] {
  return (CATALOGUE as unknown as Tool[]).map((tool) => ({ ...tool, ...overrides[tool.slug] }));
}

export function queueRow(tool: string, figures: Partial<ToolQueue> = {}): ToolQueue {
  return { tool, queue: 'batch', queued: 0, running: 0, queue_position: null, avg_seconds: 90, eta_seconds: 90, ...figures };
}
