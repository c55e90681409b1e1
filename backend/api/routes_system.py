"""Health, collections, jobs and the upload for editors. Parse, call the service layer
(backend/services/library.py), serialise; nothing else."""
from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, File, Form, Path, Query, Request, UploadFile

from backend import __version__
from backend.services import library
from backend.security.access import Actor
from backend.api import serialise
from backend.api.deps import known_query, needs, services
from backend.api.errors import ERROR_RESPONSES
from backend.api.schemas import CollectionList, Health, JobOut, UploadAccepted

router = APIRouter(prefix="/api", responses=ERROR_RESPONSES,
                   dependencies=[Depends(known_query)])


@router.get("/health", response_model=Health, tags=["system"], summary="Liveness")
def health():
    """No token needed; says nothing about the documents."""
    return {"status": "ok", "version": __version__}


@router.get("/collections", response_model=CollectionList, tags=["documents"],
            summary="Collections you may read")
def collections(request: Request, actor: Actor = Depends(needs("read")),
                offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
                limit: Annotated[int, Query(ge=1, le=500)] = 100):
    rows, total = library.collections_page(services(request), actor, offset=offset,
                                           limit=limit)
    return serialise.collections_page(rows, total, offset, limit)


@router.get("/jobs/{job_id}", response_model=JobOut, tags=["system"], summary="A job")
def job(job_id: Annotated[int, Path(ge=1, le=2**31 - 1)], request: Request,
        actor: Actor = Depends(needs("read"))):
    """Progress and result of a job you started (admin tokens: any job)."""
    return serialise.job(library.job_info(services(request), actor, job_id))


@router.post("/ingest", response_model=UploadAccepted, status_code=202, tags=["documents"],
             summary="Upload files (write scope)")
def ingest(request: Request, files: Annotated[list[UploadFile], File(description="the files")],
           collection: Annotated[str | None, Form(max_length=200)] = None,
           knowledge_base: Annotated[str | None, Form(max_length=200)] = None,
           actor: Actor = Depends(needs("write"))):
    """Ingest uploaded files in the background into a collection you may write; follow
    the returned job (`status_url`) for progress and each file's outcome. Limits: each file
    RAGSCOPE_MAX_UPLOAD_MB, RAGSCOPE_API_MAX_UPLOAD_FILES files per upload."""
    rs = services(request)
    limit = rs.settings.max_upload_bytes
    data = [(f.filename or "", f.file.read(limit + 1)) for f in files]  # enough to refuse
    job_id = library.start_upload(rs, actor, data, collection=collection,
                                  knowledge_base=knowledge_base,
                                  max_files=rs.settings.api_max_upload_files,
                                  sizes=[f.size for f in files])  # for the message
    info = library.job_info(rs, actor, job_id)
    return {"job_id": job_id, "files": info.files, "collection": info.collection,
            "status_url": f"/api/jobs/{job_id}"}
