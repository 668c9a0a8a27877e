// The one list of MCP tools. tools/list, the tools/call dispatcher, the auth gate and the tests
// all read it; adding a tool means adding its file and one line here.
import type { McpToolDefinition } from './tool-definition.ts';
import { getServiceMcpGuide } from './tools/get-service-mcp-guide.ts';
import { explainFeasibilityStatus } from './tools/explain-feasibility-status.ts';
import { cityInventory } from './tools/city-inventory.ts';
import { previewSiteCoverage } from './tools/preview-site-coverage.ts';
import { getFeasibilitySnapshot } from './tools/get-feasibility-snapshot.ts';
import { submitServiceFeedback } from './tools/submit-service-feedback.ts';
import { saveToProject } from './tools/save-to-project.ts';
import { updateProject } from './tools/update-project.ts';
import { runFeasibilityAnalysis } from './tools/run-feasibility-analysis.ts';
import { getProjectContext } from './tools/get-project-context.ts';
import { produceProjectReport } from './tools/produce-project-report.ts';
import { setProjectMapListing } from './tools/set-project-map-listing.ts';

export const MCP_TOOLS: readonly McpToolDefinition[] = [
  getServiceMcpGuide,
  explainFeasibilityStatus,
  cityInventory,
  previewSiteCoverage,
  getFeasibilitySnapshot,
  submitServiceFeedback,
  saveToProject,
  updateProject,
  runFeasibilityAnalysis,
  getProjectContext,
  produceProjectReport,
  setProjectMapListing,
] as unknown as readonly McpToolDefinition[];

export function findTool(name: string, tools: readonly McpToolDefinition[] = MCP_TOOLS): McpToolDefinition | undefined {
  return tools.find((t) => t.name === name);
}
