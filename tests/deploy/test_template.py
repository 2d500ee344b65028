"""template.yaml: what cfn-lint does not check inside the serverless resources (runtime, function URL,
auth, layers, environment, TTL, least-privilege IAM), checked against the code it deploys."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

from meta_mage.api.handlers import app as read_api
from meta_mage.config import Settings
from meta_mage.storage.checkpoints import TTL_ATTRIBUTE
from meta_mage.storage.tables import load_template

ROOT = Path(__file__).resolve().parents[2]
LIGHT_FUNCTIONS = {
    "WelcomeFunction": "welcome",
    "FormatsFunction": "formats",
    "ArchetypesFunction": "archetypes",
    "DraftPoolFunction": "draft_pool",
}
TABLES = {"MetaTable", "CardsTable", "DraftsTable", "CheckpointTable", "LocksTable"}
EXPECTED_TABLE_ACCESS = {
    "ChatFunction": {
        ("DynamoDBReadPolicy", "MetaTable"),
        ("DynamoDBReadPolicy", "CardsTable"),
        ("DynamoDBReadPolicy", "DraftsTable"),
        ("DynamoDBCrudPolicy", "CheckpointTable"),
        ("DynamoDBCrudPolicy", "LocksTable"),
    },
    "WelcomeFunction": {  # the LocksTable: issued conversation ids, and the day's message (read and written once)
        ("DynamoDBReadPolicy", "MetaTable"),
        ("DynamoDBWritePolicy", "LocksTable"),
        ("DynamoDBReadPolicy", "LocksTable"),
    },
    "FormatsFunction": {("DynamoDBReadPolicy", "MetaTable")},
    "ArchetypesFunction": {("DynamoDBReadPolicy", "MetaTable")},
    "DraftPoolFunction": {("DynamoDBReadPolicy", "DraftsTable")},
    "McpFunction": {
        ("DynamoDBReadPolicy", "MetaTable"),
        ("DynamoDBReadPolicy", "CardsTable"),
        ("DynamoDBReadPolicy", "DraftsTable"),
    },
    "SyncFunction": {("DynamoDBCrudPolicy", "MetaTable")},
    "IngestFunction": {
        ("DynamoDBCrudPolicy", "MetaTable"),
        ("DynamoDBCrudPolicy", "CardsTable"),
        ("DynamoDBCrudPolicy", "DraftsTable"),
    },
}


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load_template()


def resources(template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {name: r["Properties"] for name, r in template["Resources"].items() if r["Type"] == kind}


def prop(template: dict[str, Any], function: str, key: str) -> Any:
    """A function property, falling back to Globals as SAM does."""
    own = template["Resources"][function]["Properties"]
    return own.get(key, template["Globals"]["Function"].get(key))


def environment(template: dict[str, Any], function: str) -> dict[str, Any]:
    variables = dict(template["Globals"]["Function"]["Environment"]["Variables"])
    variables.update(template["Resources"][function]["Properties"].get("Environment", {}).get("Variables", {}))
    return variables


def test_every_function_runs_python312_on_arm64(template: dict[str, Any]) -> None:
    functions = resources(template, "AWS::Serverless::Function")
    assert set(functions) >= {"ChatFunction", *LIGHT_FUNCTIONS}
    for name in functions:
        assert prop(template, name, "Runtime") == "python3.12", name
        assert prop(template, name, "Architectures") == ["arm64"], name


def test_chat_function_streams_through_the_web_adapter(template: dict[str, Any]) -> None:
    chat = template["Resources"]["ChatFunction"]["Properties"]
    url = chat["FunctionUrlConfig"]
    assert url["InvokeMode"] == "RESPONSE_STREAM"
    assert url["AuthType"] == {"Ref": "ChatAuthType"}
    assert template["Parameters"]["ChatAuthType"]["Default"] == "AWS_IAM"
    assert url["Cors"]["AllowOrigins"] == [{"Ref": "CorsOrigin"}]

    env = environment(template, "ChatFunction")
    assert env["AWS_LAMBDA_EXEC_WRAPPER"] == "/opt/bootstrap"
    assert env["AWS_LWA_INVOKE_MODE"] == "response_stream"
    assert env["AWS_LWA_READINESS_CHECK_PATH"] == "/healthz"

    # Given the handler script: it is executable and starts uvicorn on $PORT with a module that exists
    run_sh = ROOT / chat["CodeUri"] / chat["Handler"]
    assert os.access(run_sh, os.X_OK)
    script = run_sh.read_text()
    module = re.search(r"uvicorn ([\w.]+):app", script)
    assert module and importlib.util.find_spec(module.group(1)) is not None
    assert '"${PORT:-8080}"' in script and env["PORT"] == "8080"

    layers = chat["Layers"]
    assert layers[:2] == [{"Ref": "LightLayer"}, {"Ref": "AgentLayer"}]
    adapter = layers[2]["Fn::Sub"]
    assert ":753240598075:layer:LambdaAdapterLayerArm64:" in adapter


def test_a_chat_turn_ends_before_its_function_is_stopped(template: dict[str, Any]) -> None:
    """Lambda stops the function at its Timeout as a kill would: the turn's own deadline comes first, with
    time left to send the error event and release the lock; a killed turn's lease frees the conversation
    soon after."""
    chat = template["Resources"]["ChatFunction"]["Properties"]
    env = environment(template, "ChatFunction")
    settings = Settings(
        turn_deadline_seconds=env["META_MAGE_TURN_DEADLINE_SECONDS"],
        chat_lock_seconds=env["META_MAGE_CHAT_LOCK_SECONDS"],
    )
    timeout = int(chat["Timeout"])
    assert settings.turn_deadline_seconds + 30 <= timeout, "the turn deadline leaves under 30 s before Timeout"
    assert settings.chat_lock_seconds <= 60, "a crashed turn would lock its conversation for over a minute"
    assert settings.tool_timeout_seconds < settings.turn_deadline_seconds


def test_light_functions_are_thin_and_routed_to_what_the_handler_serves(template: dict[str, Any]) -> None:
    served = {(route.method if isinstance(route.method, str) else route.method[0], route.rule.pattern)
              for route in read_api._static_routes + read_api._dynamic_routes}  # fmt: skip
    assert served
    for name, folder in LIGHT_FUNCTIONS.items():
        fn = template["Resources"][name]["Properties"]
        assert fn["Layers"] == [{"Ref": "LightLayer"}], name
        assert fn["Handler"] == "app.lambda_handler" and (ROOT / fn["CodeUri"] / "app.py").is_file()
        assert Path(fn["CodeUri"]).name == folder
        for event in fn["Events"].values():
            assert event["Type"] == "HttpApi" and event["Properties"]["ApiId"] == {"Ref": "HttpApi"}
            path = event["Properties"]["Path"]
            powertools_path = re.sub(r"\{(\w+)\}", r"<\1>", path)
            assert any(
                re.fullmatch(pattern, path) or re.fullmatch(pattern, powertools_path) for _, pattern in served
            ), f"{name}: {path} is not served by meta_mage.api.handlers"


def test_layers_are_built_by_their_makefiles(template: dict[str, Any]) -> None:
    for name in ("LightLayer", "AgentLayer"):
        layer = template["Resources"][name]
        assert layer["Metadata"] == {"BuildMethod": "makefile", "BuildArchitecture": "arm64"}
        assert layer["Properties"]["CompatibleRuntimes"] == ["python3.12"]
        makefile = (ROOT / layer["Properties"]["ContentUri"] / "Makefile").read_text()
        assert f"build-{name}:" in makefile


def test_layers_carry_every_runtime_dependency_of_the_library() -> None:
    def names(path: Path) -> set[str]:
        lines = [line.split("#")[0].strip() for line in path.read_text().splitlines()]
        return {Requirement(line).name.lower() for line in lines if line}

    light, agent = names(ROOT / "layers/light/requirements.txt"), names(ROOT / "layers/agent/requirements.txt")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    def extra(block: str) -> set[str]:
        listed = project["dependencies"] if block == "dependencies" else project["optional-dependencies"][block]
        return {Requirement(item).name.lower() for item in listed}

    core = extra("dependencies") - {"boto3", "urllib3"}  # the runtime ships boto3 and its urllib3
    assert (
        core <= light | {"aws-lambda-powertools"}
        and "aws-lambda-powertools[tracer]>=3.0" in (ROOT / "layers/light/requirements.txt").read_text()
    )
    assert extra("agent") <= agent
    assert extra("api") - {"httpx"} <= agent  # httpx is the terminal client's
    assert extra("mcp") <= agent


def test_environment_names_real_settings_and_the_right_tables(template: dict[str, Any]) -> None:
    fields = set(Settings.model_fields)
    for name in resources(template, "AWS::Serverless::Function"):
        for key in environment(template, name):
            if key.startswith("META_MAGE_"):
                assert key[len("META_MAGE_") :].lower() in fields, f"{name}: {key} is not a setting"
    env = template["Globals"]["Function"]["Environment"]["Variables"]
    for logical_id, field in {
        "MetaTable": "meta_table",
        "CardsTable": "cards_table",
        "DraftsTable": "drafts_table",
        "CheckpointTable": "checkpoint_table",
        "LocksTable": "locks_table",
    }.items():
        assert env[f"META_MAGE_{field.upper()}"] == {"Ref": logical_id}
    assert env["META_MAGE_MODEL"] == {"Ref": "ModelId"} and env["POWERTOOLS_LOG_LEVEL"] == {"Ref": "LogLevel"}


def test_tables_have_ttl_and_point_in_time_recovery(template: dict[str, Any]) -> None:
    tables = resources(template, "AWS::DynamoDB::Table")
    assert set(tables) == TABLES
    assert tables["CheckpointTable"]["TimeToLiveSpecification"] == {"AttributeName": TTL_ATTRIBUTE, "Enabled": True}
    assert tables["LocksTable"]["TimeToLiveSpecification"] == {"AttributeName": "ttl", "Enabled": True}
    for name in ("MetaTable", "CardsTable", "DraftsTable"):
        assert tables[name]["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}


def _statements(policies: list[Any]) -> list[dict[str, Any]]:
    found = []
    for policy in policies:
        if isinstance(policy, dict) and "Fn::If" in policy:
            policy = policy["Fn::If"][1]
        if isinstance(policy, dict) and "Statement" in policy:
            found.extend(policy["Statement"])
    return found


def test_each_function_reaches_only_its_tables_and_the_configured_model(template: dict[str, Any]) -> None:
    for name, expected in EXPECTED_TABLE_ACCESS.items():
        policies = template["Resources"][name]["Properties"]["Policies"]
        access = {
            (kind, args["TableName"]["Ref"])
            for policy in policies
            if isinstance(policy, dict)
            for kind, args in policy.items()
            if kind.startswith("DynamoDB")
        }
        assert access == expected, name
        for statement in _statements(policies):
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            if name == "SyncFunction":  # the GitHub token, when one is configured
                token_parameter = "arn:${AWS::Partition}:ssm:${AWS::Region}:${AWS::AccountId}:parameter/"
                assert (actions, statement["Resource"]) in [
                    (["ssm:GetParameter"], {"Fn::Sub": token_parameter + "${SyncTokenSsmParameter}"}),
                    (["secretsmanager:GetSecretValue"], {"Ref": "SyncTokenSecretArn"}),
                ]
                continue
            assert actions == ["lambda:InvokeFunctionUrl"], name
            # the MCP function URL is on its alias (SnapStart's published versions)
            assert (name, statement["Resource"]) == ("ChatFunction", {"Ref": "McpFunction.Alias"})
    bedrock_users = {
        name
        for name in EXPECTED_TABLE_ACCESS
        for policy in template["Resources"][name]["Properties"]["Policies"]
        if policy == {"Fn::If": ["HasModel", {"Ref": "BedrockInvokePolicy"}, {"Ref": "AWS::NoValue"}]}
    }
    assert bedrock_users == {"ChatFunction", "WelcomeFunction"}


def _evaluate(value: Any, parameters: dict[str, Any]) -> Any:
    """The few intrinsic functions the Bedrock policy uses, evaluated with ``parameters``."""
    if isinstance(value, dict) and len(value) == 1:
        ((function, argument),) = value.items()
        if function == "Ref":
            return parameters[argument]
        if function == "Fn::Split":
            return _evaluate(argument[1], parameters).split(argument[0])
        if function == "Fn::Select":
            return _evaluate(argument[1], parameters)[int(argument[0])]
        if function == "Fn::Join":
            return argument[0].join(_evaluate(part, parameters) for part in _evaluate(argument[1], parameters))
        if function == "Fn::Sub":
            text, names = (argument, {}) if isinstance(argument, str) else argument
            names = {**parameters, **{k: _evaluate(v, parameters) for k, v in names.items()}}
            return re.sub(r"\$\{([\w:]+)\}", lambda m: str(names[m.group(1)]), text)
    if isinstance(value, dict):
        return {key: _evaluate(v, parameters) for key, v in value.items()}
    if isinstance(value, list):
        return [_evaluate(v, parameters) for v in value]
    return value


def test_bedrock_allows_exactly_the_inference_profile_and_its_model_through_it(template: dict[str, Any]) -> None:
    from meta_mage.bedrock import bedrock_model_id

    model_id = template["Parameters"]["ModelId"]["Default"]
    regions = template["Parameters"]["ModelRegions"]["Default"].split(",")
    assert model_id.startswith("us.anthropic.claude-") and re.fullmatch(
        template["Parameters"]["ModelId"]["AllowedPattern"], model_id
    )
    # Given the stack in us-east-2 with the defaults
    parameters = {
        "ModelId": model_id, "ModelRegions": regions, "AWS::Partition": "aws",
        "AWS::Region": "us-east-2", "AWS::AccountId": "111122223333",
    }  # fmt: skip
    policy = template["Resources"]["BedrockInvokePolicy"]
    assert policy["Type"] == "AWS::IAM::ManagedPolicy" and policy["Condition"] == "HasModel"
    profile, model = _evaluate(policy["Properties"]["PolicyDocument"]["Statement"], parameters)
    profile_arn = f"arn:aws:bedrock:us-east-2:111122223333:inference-profile/{model_id}"
    # Then the profile itself, in the stack's region and account, and nothing else, may be invoked
    assert profile["Resource"] == profile_arn and "Condition" not in profile
    # and its foundation model in any region of the profile's, only when called through that profile
    assert model["Resource"] == "arn:aws:bedrock:*::foundation-model/anthropic.claude-haiku-4-5-20251001-v1:0"
    assert model["Condition"] == {
        "StringEquals": {"aws:RequestedRegion": regions, "bedrock:InferenceProfileArn": profile_arn}
    }
    for statement in (profile, model):
        assert statement["Effect"] == "Allow"
        assert statement["Action"] == ["bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"]
    # and the chat function (LangChain) and the welcome function (Converse) call that same id
    for name in ("ChatFunction", "WelcomeFunction"):
        assert environment(template, name)["META_MAGE_MODEL"] == {"Ref": "ModelId"}
    assert bedrock_model_id(model_id) == model_id


def test_snapstart_publishes_versions_that_the_urls_and_routes_call(template: dict[str, Any]) -> None:
    assert template["Parameters"]["SnapStart"]["Default"] == "true"
    assert template["Conditions"]["UseSnapStart"] == {"Fn::Equals": [{"Ref": "SnapStart"}, "true"]}
    for name in ("ChatFunction", "McpFunction", *LIGHT_FUNCTIONS):
        function = template["Resources"][name]["Properties"]
        # SAM points the function URL, the HTTP API integrations and their permissions at the alias
        assert function["AutoPublishAlias"] == "live", name
        assert function["SnapStart"] == {"ApplyOn": {"Fn::If": ["UseSnapStart", "PublishedVersions", "None"]}}, name
    for name in ("ChatFunction", "McpFunction"):
        env = environment(template, name)
        assert env["AWS_LWA_SNAPSTART_BEFORE_CHECKPOINT_PATH"] == "/snapstart/before-checkpoint"
        assert env["AWS_LWA_SNAPSTART_AFTER_RESTORE_PATH"] == "/snapstart/after-restore"
    assert template["Parameters"]["WebAdapterLayerVersion"]["Default"] == 30  # adapter v1.1.0


def test_cors_is_one_configured_origin_and_every_url_is_an_output(template: dict[str, Any]) -> None:
    assert "*" not in template["Parameters"]["CorsOrigin"]["Default"]
    api = template["Resources"]["HttpApi"]["Properties"]
    assert api["CorsConfiguration"]["AllowOrigins"] == [{"Ref": "CorsOrigin"}]
    assert api["DefaultRouteSettings"] == {
        "ThrottlingRateLimit": {"Ref": "ApiThrottlingRate"},
        "ThrottlingBurstLimit": {"Ref": "ApiThrottlingBurst"},
    }
    outputs = template["Outputs"]
    assert outputs["ChatUrl"]["Value"] == {"Fn::GetAtt": ["ChatFunctionUrl", "FunctionUrl"]}
    for route in ("welcome", "formats", "archetypes", "drafts"):
        assert outputs[f"{route.capitalize()}Url"]["Value"]["Fn::Sub"].endswith(f"/{route}")


def test_dropped_files_reach_the_ingest_function_and_failures_the_queue(template: dict[str, Any]) -> None:
    ingest = template["Resources"]["IngestFunction"]["Properties"]
    assert ingest["Layers"] == [{"Ref": "LightLayer"}] and (ROOT / ingest["CodeUri"] / "app.py").is_file()
    # read-then-write aggregates: one file at a time
    assert ingest["ReservedConcurrentExecutions"] == 1
    (event,) = ingest["Events"].values()
    assert event == {"Type": "S3", "Properties": {"Bucket": {"Ref": "IngestBucket"}, "Events": "s3:ObjectCreated:*"}}
    assert ingest["EventInvokeConfig"]["DestinationConfig"]["OnFailure"] == {
        "Type": "SQS",
        "Destination": {"Fn::GetAtt": ["IngestFailureQueue", "Arn"]},
    }
    env = environment(template, "IngestFunction")
    assert env["META_MAGE_INGEST_FAILURE_QUEUE_URL"] == {"Ref": "IngestFailureQueue"}
    bucket_name = template["Resources"]["IngestBucket"]["Properties"]["BucketName"]
    assert env["META_MAGE_INGEST_BUCKET"] == bucket_name
    read_policy = next(p["S3ReadPolicy"] for p in ingest["Policies"] if "S3ReadPolicy" in p)
    assert read_policy == {"BucketName": bucket_name}


def test_mcp_function_serves_the_mcp_app_through_the_web_adapter(template: dict[str, Any]) -> None:
    mcp = template["Resources"]["McpFunction"]["Properties"]
    assert mcp["FunctionUrlConfig"]["AuthType"] == {"Ref": "McpAuthType"}
    assert template["Parameters"]["McpAuthType"]["Default"] == "AWS_IAM"
    assert environment(template, "McpFunction")["AWS_LAMBDA_EXEC_WRAPPER"] == "/opt/bootstrap"
    run_sh = ROOT / mcp["CodeUri"] / mcp["Handler"]
    assert os.access(run_sh, os.X_OK)
    module = re.search(r"uvicorn ([\w.]+):app", run_sh.read_text())
    assert module and importlib.util.find_spec(module.group(1)) is not None
    assert mcp["Layers"][:2] == [{"Ref": "LightLayer"}, {"Ref": "AgentLayer"}]
    # the coach reaches it only when asked to, with the URL's /mcp path
    chat_env = environment(template, "ChatFunction")
    assert chat_env["META_MAGE_MCP_URL"] == {
        "Fn::If": ["ChatUsesMcp", {"Fn::Sub": "${McpFunctionUrl.FunctionUrl}mcp"}, ""]
    }
    assert template["Parameters"]["ChatToolsOverMcp"]["Default"] == "false"


def test_the_packaged_table_schemas_are_the_templates() -> None:
    from meta_mage.storage.tables import SCHEMAS_PATH, export_schemas

    shipped = json.loads(SCHEMAS_PATH.read_text())
    assert shipped == export_schemas(ROOT / "template.yaml"), "run: python -m meta_mage.storage.tables"


def test_tables_can_be_created_from_an_installed_package(tmp_path: Path) -> None:
    # Given the package as pip installs it: without template.yaml beside it
    ignore = shutil.ignore_patterns("__pycache__", "demo_data")
    shutil.copytree(ROOT / "src" / "meta_mage", tmp_path / "site" / "meta_mage", ignore=ignore)
    code = "from meta_mage.storage.tables import table_definitions, ttl_attributes; print(sorted(table_definitions()))"
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(["CardsTable", "CheckpointTable", "DraftsTable", "LocksTable", "MetaTable"])


def test_the_apps_load_without_what_the_layers_leave_out() -> None:
    sys.path.insert(0, str(ROOT / "layers"))
    try:
        from build_layer import NEVER_IMPORTED
    finally:
        sys.path.pop(0)
    code = (
        "import sys\nimport meta_mage.api.chat_function, meta_mage.mcp.function\n"
        f"print(sorted(set({sorted(NEVER_IMPORTED)!r}) & {{m.split('.')[0] for m in sys.modules}}))"
    )
    env = {
        **os.environ,
        "META_MAGE_MODEL": "us.anthropic.claude-haiku-4-5-20251001-v1:0",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert loaded.stdout.strip() == "[]"


def test_the_daily_sync_runs_on_a_schedule_with_retries_a_dead_letter_queue_and_alarms(
    template: dict[str, Any],
) -> None:
    sync = template["Resources"]["SyncFunction"]["Properties"]
    schedule = sync["Events"]["Daily"]
    assert schedule["Type"] == "ScheduleV2"
    properties = schedule["Properties"]
    assert properties["ScheduleExpression"] == {"Ref": "SyncTime"}
    assert template["Parameters"]["SyncTime"]["Default"] == "cron(30 18 * * ? *)"  # after the cache's ~18:00 commit
    assert properties["RetryPolicy"]["MaximumRetryAttempts"] >= 1
    assert properties["DeadLetterConfig"] == {"Arn": {"Fn::GetAtt": ["SyncDeadLetterQueue", "Arn"]}}
    assert sync["ReservedConcurrentExecutions"] == 1
    # a run that raises (files left for a retry) is run again, then recorded in the same queue
    assert sync["EventInvokeConfig"]["MaximumRetryAttempts"] == 2
    assert (
        sync["EventInvokeConfig"]["DestinationConfig"]["OnFailure"]["Destination"]
        == properties["DeadLetterConfig"]["Arn"]
    )
    env = environment(template, "SyncFunction")
    settings = Settings()
    for variable in env:
        if variable.startswith("META_MAGE_SYNC_"):
            assert hasattr(settings, variable.removeprefix("META_MAGE_").lower()), variable
    alarms = {
        r["Properties"]["MetricName"] for r in template["Resources"].values() if r["Type"] == "AWS::CloudWatch::Alarm"
    }
    assert {"FilesFailed", "Errors", "UnnamedDeckShare"} <= alarms
    assert (ROOT / sync["CodeUri"] / "app.py").exists()


def test_the_welcome_function_is_capped_and_its_route_throttled(template: dict[str, Any]) -> None:
    welcome = template["Resources"]["WelcomeFunction"]["Properties"]
    assert welcome["ReservedConcurrentExecutions"] == {"Ref": "WelcomeReservedConcurrency"}
    assert template["Parameters"]["WelcomeReservedConcurrency"]["Default"] == 2
    route = template["Resources"]["HttpApi"]["Properties"]["RouteSettings"]["GET /welcome"]
    assert route == {
        "ThrottlingRateLimit": {"Ref": "WelcomeThrottlingRate"},
        "ThrottlingBurstLimit": {"Ref": "WelcomeThrottlingRate"},
    }
