-- CreateTable
CREATE TABLE "search_documents" (
    "index_name" VARCHAR(50) NOT NULL,
    "id" VARCHAR(100) NOT NULL,
    "filters" JSONB NOT NULL,
    "data" JSONB NOT NULL,
    "search_vector" tsvector NOT NULL,
    "indexed_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "search_documents_pkey" PRIMARY KEY ("index_name","id")
);

-- CreateIndex
CREATE INDEX "search_documents_search_vector_idx" ON "search_documents" USING GIN ("search_vector");

-- CreateIndex
CREATE INDEX "search_documents_filters_idx" ON "search_documents" USING GIN ("filters" jsonb_path_ops);

-- CreateIndex
CREATE INDEX "search_documents_index_name_indexed_at_idx" ON "search_documents"("index_name", "indexed_at");
