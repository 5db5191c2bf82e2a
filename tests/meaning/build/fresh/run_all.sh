#!/bin/sh
# Rebuild the data15 set (mirrors must exist under /work/.mirror, fetched with the `fetch` tool).
set -e
cd "$(dirname "$0")"
python3 mine.py containers/kubernetes-mcp-server Flux159/mcp-server-kubernetes dbt-labs/dbt-mcp ClickHouse/mcp-clickhouse \
  neo4j-contrib/mcp-neo4j elevenlabs/elevenlabs-mcp apify/actors-mcp-server brightdata/brightdata-mcp \
  CircleCI-Public/mcp-server-circleci buildkite/buildkite-mcp-server razorpay/razorpay-mcp-server PostHog/mcp \
  taylorwilsdon/google_workspace_mcp korotovsky/slack-mcp-server czlonkowski/n8n-mcp hangwin/mcp-chrome \
  MiniMax-AI/MiniMax-MCP semgrep/mcp pydantic/logfire-mcp square/square-mcp-server auth0/auth0-mcp-server \
  honeycombio/honeycomb-mcp box-community/mcp-server-box ahujasid/blender-mcp pinecone-io/pinecone-mcp \
  mapbox/mcp-server twilio-labs/mcp StarRocks/mcp-server-starrocks JetBrains/mcp-jetbrains launchdarkly/mcp-server \
  oraios/serena SonarSource/sonarqube-mcp-server Azure/azure-mcp Shopify/dev-mcp alexei-led/k8s-mcp-server \
  e2b-dev/mcp-server jina-ai/MCP perplexityai/modelcontextprotocol 21st-dev/magic-mcp mem0ai/mem0-mcp \
  MicrosoftDocs/mcp keboola/mcp-server zscaler/zscaler-mcp-server last9/last9-mcp-server harness/mcp-server
python3 build.py
python3 gen_sources.py
python3 verify.py
