#!/bin/sh
# Rebuild the whole set (mirrors must exist under /work/.mirror, fetched with the `fetch` tool).
set -e
cd "$(dirname "$0")"
python3 mine.py modelcontextprotocol/servers microsoft/playwright-mcp grafana/mcp-grafana mongodb-js/mongodb-mcp-server \
  sooperset/mcp-atlassian supabase-community/supabase-mcp hashicorp/terraform-mcp-server mendableai/firecrawl-mcp-server \
  makenotion/notion-mcp-server elastic/mcp-server-elasticsearch brave/brave-search-mcp-server upstash/context7 \
  microsoft/azure-devops-mcp exa-labs/exa-mcp-server qdrant/mcp-server-qdrant neondatabase/mcp-server-neon \
  wonderwhy-er/DesktopCommanderMCP redis/mcp-redis tavily-ai/tavily-mcp browserbase/mcp-server-browserbase \
  chroma-core/chroma-mcp heroku/heroku-mcp-server GLips/Figma-Context-MCP motherduckdb/mcp-server-motherduck \
  executeautomation/mcp-playwright line/line-bot-mcp-server awslabs/mcp cloudflare/mcp-server-cloudflare \
  pulumi/mcp-server stripe/agent-toolkit getzep/graphiti zcaceres/fetch-mcp
python3 build.py
python3 gen_sources.py
