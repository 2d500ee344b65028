"""DynamoDB repositories: the only code that touches boto3 tables."""
