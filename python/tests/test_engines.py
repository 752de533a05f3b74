"""ctxc.compact_batch inside the engines, run for real on this machine: Ray Data (local, 2 CPUs),
Spark (local[2]) and Hugging Face `datasets`. Each reads a Parquet file of corpus conversations,
compacts it with compact_batch and must give every row of `ctxc compact data.parquet -o
out.parquet` (and each row's report in the report columns). The engines' pinned versions are in
python/requirements-engines.txt; scripts/ci/python-tests.sh installs them. An engine that is not
installed is skipped, or fails where $CTXC_ENGINES_REQUIRED is set."""

import os
import shutil
import sys

import pytest

import ctxc
from datasets_util import (
    REPORT,
    assert_rows_equal,
    cli_compact,
    need,
    pq,
    swe_agent_rows,
    tau_bench_rows,
    write_dataset,
)

SETTINGS = {"target_ratio": 0.5, "force": True}
FLAGS = ("--force", "--target-ratio", "0.5")


@pytest.fixture(scope="module", params=["structs", "json"])
def dataset(request, tmp_path_factory):
    """(input path, the CLI's output table, its reports by row) for a list-of-struct dataset
    (tau-bench runs) and a JSON-string one (SWE-agent histories, one row that fails)."""
    folder = tmp_path_factory.mktemp(request.param)
    data = folder / "data.parquet"
    rows = tau_bench_rows(12) if request.param == "structs" else swe_agent_rows(bad=3)
    write_dataset(data, rows, group=4)
    cli_table, cli_reports = cli_compact(data, folder / "cli.parquet", *FLAGS)
    return data, cli_table, cli_reports


@pytest.fixture(scope="module")
def ray():
    ray = need("ray")
    need("ray.data")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()


def test_ray_data_map_batches(ray, dataset, tmp_path):
    data, cli_table, cli_reports = dataset
    out = tmp_path / "ray-out"
    (
        ray.data.read_parquet(str(data))
        .map_batches(ctxc.compact_batch, batch_format="pyarrow", fn_kwargs=SETTINGS)
        .write_parquet(str(out))
    )
    got = pq.read_table(out)
    assert got.schema.names == cli_table.schema.names + REPORT
    assert_rows_equal(got, cli_table, cli_reports)


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    need("pyspark")
    if not shutil.which("java") and not os.environ.get("JAVA_HOME"):
        if os.environ.get("CTXC_ENGINES_REQUIRED"):
            pytest.fail("no Java for Spark (java on PATH or $JAVA_HOME)")
        pytest.skip("no Java for Spark")
    from pyspark.sql import SparkSession

    # Spark's Python workers run this Python, where ctxc is installed.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("ctxc-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.warehouse.dir", str(tmp_path_factory.mktemp("spark-warehouse")))
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def spark_compact(spark, path, out):
    """The Spark example of docs/python.md."""
    from pyspark.sql.types import DataType, StructType

    df = spark.read.parquet(path)
    schema = StructType(df.schema.fields + DataType.fromDDL(ctxc.REPORT_DDL).fields)

    def compact(batches):
        for batch in batches:
            yield ctxc.compact_batch(batch, target_ratio=0.5, force=True)

    df.mapInArrow(compact, schema).write.parquet(out)


def test_spark_map_in_arrow(spark, dataset, tmp_path):
    data, cli_table, cli_reports = dataset
    out = tmp_path / "spark-out"
    spark_compact(spark, str(data), str(out))
    got = pq.read_table(out)
    assert got.schema.names == cli_table.schema.names + REPORT
    assert_rows_equal(got, cli_table, cli_reports)


def test_hugging_face_datasets_map(dataset, tmp_path):
    hf = need("datasets")
    data, cli_table, cli_reports = dataset
    ds = hf.Dataset.from_parquet(str(data), cache_dir=str(tmp_path / "hf-cache"))
    done = ds.map(ctxc.compact_batch, batched=True, fn_kwargs=SETTINGS)
    assert done.column_names == cli_table.schema.names + REPORT
    assert_rows_equal(done.to_list(), cli_table, cli_reports)
