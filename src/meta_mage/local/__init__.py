"""The embedded default: a DynamoDB on loopback (moto server mode) loaded with the demo data."""
