/* empty.c - keeps fc_analysis_io a valid library before its readers exist. */
typedef int fc_analysis_io_empty;
