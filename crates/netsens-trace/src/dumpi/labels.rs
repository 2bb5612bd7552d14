//! DUMPI's records: for each function label (the 16-bit number that opens a call
//! record, the call's position in `dumpi_function`, sst-dumpi's
//! `dumpi/common/funclabels.h`), the call's name and the layout of its arguments, as
//! libdumpi writes them (`dumpi/common/dumpiio.c`, types in `argtypes.h`). The list is
//! closed: libdumpi writes no other record, so with this table every record of an
//! undamaged file can be read or skipped.
//!
//! A layout is one character per field, in the order written (all big-endian):
//! - `i` a 32-bit integer (a count, rank, tag, request, address, error code); `k` one
//!   that is the caller's rank in the call's communicator and `o` one that is the
//!   root: fields in `[` `]` are written only where the two are equal;
//! - `h` a 16-bit handle (communicator, datatype, group, info, window, file,
//!   errhandler, keyval); `b` an 8-bit value (operation, thread level, combiner, ...);
//!   `l` a 64-bit integer (file offsets and sizes, a function's address);
//! - `I`, `H`, `B`: a 32-bit count, then that many 32-, 16- or 8-bit values; `J` a
//!   32-bit count of such 32-bit arrays;
//! - `s` a string (32-bit length, then its bytes); `S` a 32-bit count of strings; `T`
//!   a 32-bit count of `S`; `A` the `argv` of `MPI_Init` (an `S` whose count was
//!   written twice before DUMPI 0.6.2);
//! - `t` statuses, present when the record's mask says so: a 32-bit count, then each
//!   status's bytes (32), source (32), cancelled and error flags (8 + 8) and, from
//!   DUMPI 0.6.3 on, tag (32);
//! - `9` and `8`: an `I` from DUMPI 0.6.9 (`MPI_Type_struct`'s displacements) and
//!   0.6.8 (`MPI_Cart_get`'s coordinates) on, a single `i` before;
//! - `-`: libdumpi writes no record for the call (`MPI_Pcontrol`).

/// The calls by function label, with their layouts; `MPIO_` are ROMIO's request calls.
#[rustfmt::skip]
pub const CALLS: [(&str, &str); 290] = [
    ("MPI_Send", "ihiih"), ("MPI_Recv", "ihiiht"), ("MPI_Get_count", "thi"), ("MPI_Bsend", "ihiih"),
    ("MPI_Ssend", "ihiih"), ("MPI_Rsend", "ihiih"), ("MPI_Buffer_attach", "i"), ("MPI_Buffer_detach", "i"),
    ("MPI_Isend", "ihiihi"), ("MPI_Ibsend", "ihiihi"), ("MPI_Issend", "ihiihi"), ("MPI_Irsend", "ihiihi"),
    ("MPI_Irecv", "ihiihi"), ("MPI_Wait", "it"), ("MPI_Test", "iit"), ("MPI_Request_free", "i"),
    ("MPI_Waitany", "iIit"), ("MPI_Testany", "iIiit"), ("MPI_Waitall", "iIt"), ("MPI_Testall", "iIit"),
    ("MPI_Waitsome", "iIiIt"), ("MPI_Testsome", "iIiIt"), ("MPI_Iprobe", "iihit"), ("MPI_Probe", "iiht"),
    ("MPI_Cancel", "i"), ("MPI_Test_cancelled", "ti"), ("MPI_Send_init", "ihiihi"), ("MPI_Bsend_init", "ihiihi"),
    ("MPI_Ssend_init", "ihiihi"), ("MPI_Rsend_init", "ihiihi"), ("MPI_Recv_init", "ihiihi"), ("MPI_Start", "i"),
    ("MPI_Startall", "iI"), ("MPI_Sendrecv", "ihiiihiiht"), ("MPI_Sendrecv_replace", "ihiiiiht"),
    ("MPI_Type_contiguous", "ihh"), ("MPI_Type_vector", "iiihh"), ("MPI_Type_hvector", "iiihh"),
    ("MPI_Type_indexed", "iIIhh"), ("MPI_Type_hindexed", "iIIhh"), ("MPI_Type_struct", "iI9Hh"),
    ("MPI_Address", "i"), ("MPI_Type_extent", "hi"), ("MPI_Type_size", "hi"), ("MPI_Type_lb", "hi"),
    ("MPI_Type_ub", "hi"), ("MPI_Type_commit", "h"), ("MPI_Type_free", "h"), ("MPI_Get_elements", "thi"),
    ("MPI_Pack", "ihiiih"), ("MPI_Unpack", "iiiihh"), ("MPI_Pack_size", "ihhi"), ("MPI_Barrier", "h"),
    ("MPI_Bcast", "ihoh"), ("MPI_Gather", "kihoh[ih]"), ("MPI_Gatherv", "kiihoh[II]h"),
    ("MPI_Scatter", "kihoh[ih]"), ("MPI_Scatterv", "kihihoh[II]"), ("MPI_Allgather", "ihihh"),
    ("MPI_Allgatherv", "iihIIhh"), ("MPI_Alltoall", "ihihh"), ("MPI_Alltoallv", "iIIhIIhh"),
    ("MPI_Reduce", "ihboh"), ("MPI_Op_create", "ib"), ("MPI_Op_free", "b"), ("MPI_Allreduce", "ihbh"),
    ("MPI_Reduce_scatter", "iIhbh"), ("MPI_Scan", "ihbh"), ("MPI_Group_size", "hi"), ("MPI_Group_rank", "hi"),
    ("MPI_Group_translate_ranks", "hiIhI"), ("MPI_Group_compare", "hhb"), ("MPI_Comm_group", "hh"),
    ("MPI_Group_union", "hhh"), ("MPI_Group_intersection", "hhh"), ("MPI_Group_difference", "hhh"),
    ("MPI_Group_incl", "hiIh"), ("MPI_Group_excl", "hiIh"), ("MPI_Group_range_incl", "hiJh"),
    ("MPI_Group_range_excl", "hiJh"), ("MPI_Group_free", "h"), ("MPI_Comm_size", "hi"), ("MPI_Comm_rank", "hi"),
    ("MPI_Comm_compare", "hhb"), ("MPI_Comm_dup", "hh"), ("MPI_Comm_create", "hhh"), ("MPI_Comm_split", "hiih"),
    ("MPI_Comm_free", "h"), ("MPI_Comm_test_inter", "hi"), ("MPI_Comm_remote_size", "hi"),
    ("MPI_Comm_remote_group", "hh"), ("MPI_Intercomm_create", "hihiih"), ("MPI_Intercomm_merge", "hih"),
    ("MPI_Keyval_create", "h"), ("MPI_Keyval_free", "h"), ("MPI_Attr_put", "hi"), ("MPI_Attr_get", "hii"),
    ("MPI_Attr_delete", "hi"), ("MPI_Topo_test", "hb"), ("MPI_Cart_create", "hiIIih"), ("MPI_Dims_create", "iiII"),
    ("MPI_Graph_create", "ihiIIih"), ("MPI_Graphdims_get", "hii"), ("MPI_Graph_get", "iihiiII"),
    ("MPI_Cartdim_get", "hi"), ("MPI_Cart_get", "ihiII8"), ("MPI_Cart_rank", "ihIi"), ("MPI_Cart_coords", "ihiiI"),
    ("MPI_Graph_neighbors_count", "hii"), ("MPI_Graph_neighbors", "ihiiI"), ("MPI_Cart_shift", "hiiii"),
    ("MPI_Cart_sub", "ihIh"), ("MPI_Cart_map", "hiIIi"), ("MPI_Graph_map", "ihiIIi"),
    ("MPI_Get_processor_name", "si"), ("MPI_Get_version", "ii"), ("MPI_Errhandler_create", "h"),
    ("MPI_Errhandler_set", "hh"), ("MPI_Errhandler_get", "hh"), ("MPI_Errhandler_free", "h"),
    ("MPI_Error_string", "isi"), ("MPI_Error_class", "ii"), ("MPI_Wtime", ""), ("MPI_Wtick", ""),
    ("MPI_Init", "A"), ("MPI_Finalize", ""), ("MPI_Initialized", "i"), ("MPI_Abort", "hi"), ("MPI_Pcontrol", "-"),
    ("MPI_Close_port", "s"), ("MPI_Comm_accept", "shohh"), ("MPI_Comm_connect", "shohh"),
    ("MPI_Comm_disconnect", "h"), ("MPI_Comm_get_parent", "h"), ("MPI_Comm_join", "ih"),
    ("MPI_Comm_spawn", "kohh[sSihI]"), ("MPI_Comm_spawn_multiple", "ikohh[iSTIHI]"), ("MPI_Lookup_name", "shs"),
    ("MPI_Open_port", "hs"), ("MPI_Publish_name", "shs"), ("MPI_Unpublish_name", "shs"),
    ("MPI_Accumulate", "ihiiihbh"), ("MPI_Get", "ihiiihh"), ("MPI_Put", "ihiiihh"), ("MPI_Win_complete", "h"),
    ("MPI_Win_create", "iihhh"), ("MPI_Win_fence", "bh"), ("MPI_Win_free", "h"), ("MPI_Win_get_group", "hh"),
    ("MPI_Win_lock", "bibh"), ("MPI_Win_post", "hbh"), ("MPI_Win_start", "hbh"), ("MPI_Win_test", "hi"),
    ("MPI_Win_unlock", "ih"), ("MPI_Win_wait", "h"), ("MPI_Alltoallw", "iIIHIIHh"), ("MPI_Exscan", "ihbh"),
    ("MPI_Add_error_class", "i"), ("MPI_Add_error_code", "ii"), ("MPI_Add_error_string", "is"),
    ("MPI_Comm_call_errhandler", "hi"), ("MPI_Comm_create_keyval", "h"), ("MPI_Comm_delete_attr", "hh"),
    ("MPI_Comm_free_keyval", "h"), ("MPI_Comm_get_attr", "hhi"), ("MPI_Comm_get_name", "hsi"),
    ("MPI_Comm_set_attr", "hh"), ("MPI_Comm_set_name", "hs"), ("MPI_File_call_errhandler", "hi"),
    ("MPI_Grequest_complete", "i"), ("MPI_Grequest_start", "i"), ("MPI_Init_thread", "Sbb"),
    ("MPI_Is_thread_main", "i"), ("MPI_Query_thread", "b"), ("MPI_Status_set_cancelled", "ti"),
    ("MPI_Status_set_elements", "thi"), ("MPI_Type_create_keyval", "h"), ("MPI_Type_delete_attr", "hh"),
    ("MPI_Type_dup", "hh"), ("MPI_Type_free_keyval", "h"), ("MPI_Type_get_attr", "hhi"),
    ("MPI_Type_get_contents", "iiihiiiIIH"), ("MPI_Type_get_envelope", "hiiib"), ("MPI_Type_get_name", "hsi"),
    ("MPI_Type_set_attr", "hh"), ("MPI_Type_set_name", "hs"), ("MPI_Type_match_size", "bih"),
    ("MPI_Win_call_errhandler", "hi"), ("MPI_Win_create_keyval", "h"), ("MPI_Win_delete_attr", "hh"),
    ("MPI_Win_free_keyval", "h"), ("MPI_Win_get_attr", "hhi"), ("MPI_Win_get_name", "hsi"),
    ("MPI_Win_set_attr", "hh"), ("MPI_Win_set_name", "hs"), ("MPI_Alloc_mem", "ih"),
    ("MPI_Comm_create_errhandler", "h"), ("MPI_Comm_get_errhandler", "hh"), ("MPI_Comm_set_errhandler", "hh"),
    ("MPI_File_create_errhandler", "h"), ("MPI_File_get_errhandler", "hh"), ("MPI_File_set_errhandler", "hh"),
    ("MPI_Finalized", "i"), ("MPI_Free_mem", ""), ("MPI_Get_address", "i"), ("MPI_Info_create", "h"),
    ("MPI_Info_delete", "hs"), ("MPI_Info_dup", "hh"), ("MPI_Info_free", "h"), ("MPI_Info_get", "hsisi"),
    ("MPI_Info_get_nkeys", "hi"), ("MPI_Info_get_nthkey", "his"), ("MPI_Info_get_valuelen", "hsii"),
    ("MPI_Info_set", "hss"), ("MPI_Pack_external", "sihiii"), ("MPI_Pack_external_size", "sihi"),
    ("MPI_Request_get_status", "iit"), ("MPI_Type_create_darray", "iiiIBIIbhh"),
    ("MPI_Type_create_hindexed", "iIIhh"), ("MPI_Type_create_hvector", "iiihh"),
    ("MPI_Type_create_indexed_block", "iiIhh"), ("MPI_Type_create_resized", "hiih"),
    ("MPI_Type_create_struct", "iIIHh"), ("MPI_Type_create_subarray", "iIIIbhh"), ("MPI_Type_get_extent", "hii"),
    ("MPI_Type_get_true_extent", "hii"), ("MPI_Unpack_external", "siiiih"), ("MPI_Win_create_errhandler", "h"),
    ("MPI_Win_get_errhandler", "hh"), ("MPI_Win_set_errhandler", "hh"), ("MPI_File_open", "hsbhh"),
    ("MPI_File_close", "h"), ("MPI_File_delete", "sh"), ("MPI_File_set_size", "hl"),
    ("MPI_File_preallocate", "hl"), ("MPI_File_get_size", "hl"), ("MPI_File_get_group", "hh"),
    ("MPI_File_get_amode", "hb"), ("MPI_File_set_info", "hh"), ("MPI_File_get_info", "hh"),
    ("MPI_File_set_view", "hlhhsh"), ("MPI_File_get_view", "hlhhs"), ("MPI_File_read_at", "hliht"),
    ("MPI_File_read_at_all", "hliht"), ("MPI_File_write_at", "hliht"), ("MPI_File_write_at_all", "hliht"),
    ("MPI_File_iread_at", "hlihi"), ("MPI_File_iwrite_at", "hlihi"), ("MPI_File_read", "hiht"),
    ("MPI_File_read_all", "hiht"), ("MPI_File_write", "hiht"), ("MPI_File_write_all", "hiht"),
    ("MPI_File_iread", "hihi"), ("MPI_File_iwrite", "hihi"), ("MPI_File_seek", "hlb"),
    ("MPI_File_get_position", "hl"), ("MPI_File_get_byte_offset", "hll"), ("MPI_File_read_shared", "hiht"),
    ("MPI_File_write_shared", "hiht"), ("MPI_File_iread_shared", "hihi"), ("MPI_File_iwrite_shared", "hihi"),
    ("MPI_File_read_ordered", "hiht"), ("MPI_File_write_ordered", "hiht"), ("MPI_File_seek_shared", "hlb"),
    ("MPI_File_get_position_shared", "hl"), ("MPI_File_read_at_all_begin", "hlih"),
    ("MPI_File_read_at_all_end", "ht"), ("MPI_File_write_at_all_begin", "hlih"),
    ("MPI_File_write_at_all_end", "ht"), ("MPI_File_read_all_begin", "hih"), ("MPI_File_read_all_end", "ht"),
    ("MPI_File_write_all_begin", "hih"), ("MPI_File_write_all_end", "ht"), ("MPI_File_read_ordered_begin", "hih"),
    ("MPI_File_read_ordered_end", "ht"), ("MPI_File_write_ordered_begin", "hih"),
    ("MPI_File_write_ordered_end", "ht"), ("MPI_File_get_type_extent", "hhi"), ("MPI_Register_datarep", "s"),
    ("MPI_File_set_atomicity", "hi"), ("MPI_File_get_atomicity", "hi"), ("MPI_File_sync", "h"),
    ("MPIO_Test", "iit"), ("MPIO_Wait", "it"), ("MPIO_Testall", "iIit"), ("MPIO_Waitall", "iIt"),
    ("MPIO_Testany", "iIiit"), ("MPIO_Waitany", "iIit"), ("MPIO_Waitsome", "iIiIt"), ("MPIO_Testsome", "iIiIt"),
];

/// Profiled user functions' entry and exit (`DUMPI_Function_enter`, `_exit`): the
/// function's address.
pub const FUNCTION_LAYOUT: &str = "l";
