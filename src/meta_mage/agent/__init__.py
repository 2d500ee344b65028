"""The coach: a LangGraph agent that routes, enforces the blocking rules, calls tools and streams."""
