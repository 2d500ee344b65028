#!/bin/bash
# The chat function's handler: the Lambda Web Adapter (AWS_LAMBDA_EXEC_WRAPPER=/opt/bootstrap) runs this
# script, waits for uvicorn on $PORT, then forwards each function-URL request to it and streams the
# response back (AWS_LWA_INVOKE_MODE=response_stream). The app and its libraries live in the layers.
export PYTHONPATH="/opt/python:${PYTHONPATH:-}"
exec python -m uvicorn meta_mage.api.chat_function:app --host 127.0.0.1 --port "${PORT:-8080}" --no-access-log
