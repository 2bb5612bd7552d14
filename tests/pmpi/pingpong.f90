! Ping-pong between ranks 0 and 1 through the Fortran bindings (use mpi): prints the
! median round trip in ns. usage: pingpong_f BYTES REPETITIONS
program pingpong
  use mpi
  implicit none
  integer :: ierr, rank, bytes, reps, i, req
  integer :: status(MPI_STATUS_SIZE)
  character(len=32) :: arg
  character, allocatable :: buf(:)
  double precision, allocatable :: rtt(:)
  double precision :: t, tmp
  integer :: j

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, arg)
  read (arg, *) bytes
  call get_command_argument(2, arg)
  read (arg, *) reps
  allocate (buf(max(bytes, 1)), rtt(reps))
  do i = -4, reps
    t = MPI_Wtime()
    if (rank == 0) then
      call MPI_Send(buf, bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD, ierr)
      call MPI_Recv(buf, bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD, status, ierr)
    else if (rank == 1) then
      call MPI_Irecv(buf, bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD, req, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call MPI_Send(buf, bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD, ierr)
    end if
    if (i >= 1) rtt(i) = MPI_Wtime() - t
  end do
  ! insertion sort, then the median
  do i = 2, reps
    tmp = rtt(i)
    j = i - 1
    do while (j >= 1)
      if (rtt(j) <= tmp) exit
      rtt(j + 1) = rtt(j)
      j = j - 1
    end do
    rtt(j + 1) = tmp
  end do
  if (rank == 0) print '(A,I0)', 'rtt_ns ', nint(rtt(reps / 2 + 1) * 1d9)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program pingpong
